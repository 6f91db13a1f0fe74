import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import type { RateLimiter } from "../rate-limit/index.ts";
import { answerHeaders } from "./answer-headers.ts";
import { errorAnswers } from "./error-answers.ts";
import { ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { rateLimit } from "./rate-limit-plugin.ts";
import type { Route, RouteAnswer, RouteServices } from "./route.ts";
import { routePathOf } from "./route-path.ts";

export interface AppOptions {
	/** The files of routes/, keyed by their path under it. */
	routes: Record<string, Route>;
	services: RouteServices;
	limiter: RateLimiter;
	/** Length of the limiter's window, for the `RateLimit-Policy` header. */
	rateLimitWindowSeconds: number;
	/** The rate-limit key of a request from its TCP peer and X-Forwarded-For. */
	clientKey: ClientKeyResolver;
	/** Milliseconds since the epoch; injectable so tests can pin the request time. */
	clock?: () => number;
	log?: (message: string) => void;
}

const ALLOWED_METHODS = "GET, HEAD";
const METHOD_NOT_ALLOWED = messageJson(ERROR_MESSAGES.methodNotAllowed);

/** The HTTP layer: the headers every answer carries, 404 and errors, and each route at its path. */
export function createApp(options: AppOptions) {
	const { services } = options;
	const clock = options.clock ?? Date.now;
	const log = options.log ?? ((message: string) => console.error(message));

	const app = new Elysia()
		.use(answerHeaders())
		.use(errorAnswers(log))
		.use(rateLimit(options.limiter, options.clientKey, options.rateLimitWindowSeconds));

	for (const [file, route] of Object.entries(options.routes)) {
		const path = routePathOf(file);
		app.get(
			path,
			async ({ request, params, set }) => {
				const url = request.url;
				const mark = url.indexOf("?");
				const answer: RouteAnswer = await route.get(
					{
						search: mark === -1 ? "" : url.slice(mark + 1),
						params: params as Record<string, string>,
						now: Math.floor(clock() / 1000),
					},
					services,
				);
				set.status = answer.status;
				set.headers["content-type"] = answer.type ?? JSON_TYPE;
				return answer.body;
			},
			{ rateLimited: route.rateLimited },
		);
		if (route.rateLimited) {
			app.all(
				path,
				({ set }) => {
					set.status = 405;
					set.headers.allow = ALLOWED_METHODS;
					set.headers["content-type"] = JSON_TYPE;
					return METHOD_NOT_ALLOWED;
				},
				{ rateLimited: true },
			);
		}
	}
	return app;
}
