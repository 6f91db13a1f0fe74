import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import type { RateLimiter } from "../rate-limit/index.ts";
import { Representation } from "../representation/index.ts";
import { answerHeaders } from "./answer-headers.ts";
import { clientKeyOf } from "./client-key.ts";
import { emptySlugAnswer, emptySlugPaths } from "./empty-slug.ts";
import { errorAnswers } from "./error-answers.ts";
import { fileAsSetAdapter } from "./file-adapter.ts";
import { fileBody, StoredFile } from "./file-answer.ts";
import { hostIndependentAdapter } from "./host-independent-adapter.ts";
import { httpDateNow } from "./http-date.ts";
import { ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { negotiatedBody } from "./negotiate.ts";
import { oneWriteAdapter } from "./one-write-adapter.ts";
import { countRequest, rateLimit } from "./rate-limit-plugin.ts";
import { type RequestObserver, requestLog } from "./request-log.ts";
import type { Listener, Route, RouteAnswer, RouteServices } from "./route.ts";
import { routePathOf } from "./route-path.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

export interface AppOptions {
	/** The files of routes/, keyed by their path under it; each app serves those of its listener. */
	routes: Record<string, Route>;
	services: RouteServices;
	limiter: RateLimiter;
	/** Length of the limiter's window, for the `RateLimit-Policy` header. */
	rateLimitWindowSeconds: number;
	/** The rate-limit key of a request from its TCP peer and X-Forwarded-For. */
	clientKey: ClientKeyResolver;
	/** Milliseconds since the epoch; injectable so tests can pin the request time. */
	clock?: () => number;
	/** Sees every answer (access log, metrics) and every failure. */
	observer: RequestObserver;
}

const ALLOWED_METHODS = "GET, HEAD";
const PUBLIC_ADAPTER = oneWriteAdapter(fileAsSetAdapter(hostIndependentAdapter));
const METHOD_NOT_ALLOWED = messageJson(ERROR_MESSAGES.methodNotAllowed);
const ADMIN_HEADERS = { "cache-control": "no-store", ...SECURITY_HEADERS };

function routesOf(routes: Record<string, Route>, listener: Listener): [string, Route][] {
	return Object.entries(routes).filter(([, route]) => route.listener === listener);
}

type AnswerSet = { status?: number | string; headers: Record<string, string | number> };

/** A route's answer written out: its status, headers and body, negotiated or ranged where it is a file. */
function answerBody(answer: RouteAnswer, request: Request, set: AnswerSet) {
	set.status = answer.status;
	if (answer.headers) Object.assign(set.headers, answer.headers);
	const { body } = answer;
	if (body instanceof Representation) return negotiatedBody(body, request, set, answer.type ?? JSON_TYPE);
	if (body instanceof StoredFile) return fileBody(body, answer.type ?? JSON_TYPE, request, set);
	set.headers["content-type"] = answer.type ?? JSON_TYPE;
	return body;
}

/** Any method but GET and HEAD on an endpoint. */
function methodNotAllowed({ set }: { set: AnswerSet }): string {
	set.status = 405;
	set.headers.allow = ALLOWED_METHODS;
	set.headers["content-type"] = JSON_TYPE;
	return METHOD_NOT_ALLOWED;
}

/** The public listener: the headers every answer carries, 404 and errors, and each route at its path. */
export function createApp(options: AppOptions) {
	const { services } = options;
	const clock = options.clock ?? Date.now;
	const log = requestLog(options.observer, options.clientKey);

	const count = countRequest(options.limiter, options.clientKey, options.rateLimitWindowSeconds);
	// strictPath: a path is a route only as written; with a trailing slash it is
	// another path, and any path that is no route answers 404 (spec part 4).
	const app = new Elysia({ adapter: PUBLIC_ADAPTER, strictPath: true })
		.use(log.plugin)
		.use(answerHeaders(log.reportEarly))
		.use(errorAnswers(options.observer.failed, emptySlugAnswer(emptySlugPaths(options.routes), count)))
		.use(rateLimit(count));

	for (const [file, route] of routesOf(options.routes, "public")) {
		const path = routePathOf(file);
		app.get(
			path,
			async ({ request, params, set, server }) => {
				const url = request.url;
				const mark = url.indexOf("?");
				const answer: RouteAnswer = await route.get(
					{
						search: mark === -1 ? "" : url.slice(mark + 1),
						params: params as Record<string, string>,
						now: Math.floor(clock() / 1000),
						inFlight: () => server?.pendingRequests ?? 1,
						// A HEAD is answered at once: it has no body to wait for. Made
						// only when asked for: Bun makes a request's signal on first use.
						hold:
							request.method === "GET"
								? () => ({
										clientKey: clientKeyOf(options.clientKey, request, set, server),
										ifNoneMatch: request.headers.get("if-none-match"),
										signal: request.signal,
										keepOpen: (seconds) => server?.timeout(request, seconds),
									})
								: undefined,
					},
					services,
				);
				return answerBody(answer, request, set);
			},
			{ rateLimited: route.rateLimited },
		);
		if (route.rateLimited) app.all(path, methodNotAllowed, { rateLimited: true });
	}
	return app;
}

/**
 * The admin listener: probes and metrics for the operator, nothing of the API.
 * Neither logged nor counted, so probing every few seconds leaves the access
 * log and the request metrics to the clients.
 */
export function createAdminApp(options: Pick<AppOptions, "routes" | "services" | "observer">) {
	const { services } = options;
	const app = new Elysia({ adapter: hostIndependentAdapter })
		.headers(ADMIN_HEADERS)
		.onRequest(({ request, set }) => {
			if (request.method === "HEAD") set.headers.date = httpDateNow();
		})
		.use(errorAnswers(options.observer.failed));
	for (const [file, route] of routesOf(options.routes, "admin")) {
		app.get(routePathOf(file), async ({ set }) => {
			const answer = await route.get(
				{ search: "", params: {}, now: Math.floor(Date.now() / 1000), inFlight: () => 1 },
				services,
			);
			set.status = answer.status;
			set.headers["content-type"] = answer.type ?? JSON_TYPE;
			return answer.body instanceof Representation ? answer.body.text : answer.body;
		});
	}
	return app;
}
