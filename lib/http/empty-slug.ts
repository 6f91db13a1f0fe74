import type { Peer } from "./client-key.ts";
import { EMPTY_MESSAGE, ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import type { AnswerState, CountRequest } from "./rate-limit-plugin.ts";
import type { Route } from "./route.ts";
import { routePathOf } from "./route-path.ts";

const METHOD_NOT_ALLOWED = messageJson(ERROR_MESSAGES.methodNotAllowed);

/** The answer of a request no route took, when it is an endpoint's; undefined when it is not. */
export type EndpointMiss = (request: Request, server: Peer, set: AnswerState) => Promise<string | undefined>;

/**
 * `/api/faxes/` and the like: the path of an endpoint whose last segment is
 * a parameter (`/api/faxes/:slug`), with that segment empty.
 */
export function emptySlugPaths(routes: Record<string, Route>): Set<string> {
	const paths = new Set<string>();
	for (const [file, route] of Object.entries(routes)) {
		const path = routePathOf(file);
		const emptied = path.replace(/\/:\w+$/, "/");
		if (route.listener === "public" && route.rateLimited && emptied !== path) paths.add(emptied);
	}
	return paths;
}

/**
 * The API description's template `/api/faxes/{slug}` matches `/api/faxes/`
 * with an empty slug, which is a slug of the wrong shape: the endpoint's
 * counted 404 (405 for other methods), as any such slug gets. Elysia 1.4's
 * Bun adapter folds a route with a trailing slash into the one without
 * (removeTrailingPath), so the path cannot be a route of its own and is
 * answered where unrouted requests end.
 */
export function emptySlugAnswer(paths: Set<string>, count: CountRequest): EndpointMiss {
	return async (request, server, set) => {
		const url = request.url;
		const start = url.charCodeAt(0) === 47 ? 0 : url.indexOf("/", url.indexOf("//") + 2);
		const mark = url.indexOf("?", start);
		if (!paths.has(url.slice(start, mark === -1 ? undefined : mark))) return undefined;
		const refused = await count(request, server, set);
		if (refused !== undefined) return refused;
		set.headers["content-type"] = JSON_TYPE;
		if (request.method === "GET" || request.method === "HEAD") {
			set.status = 404;
			return EMPTY_MESSAGE;
		}
		set.status = 405;
		set.headers.allow = "GET, HEAD";
		return METHOD_NOT_ALLOWED;
	};
}
