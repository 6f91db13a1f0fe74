import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import { clientKeyOf, type Peer } from "./client-key.ts";

/** One answer of the public listener, as the access log and the metrics see it. */
export interface AnsweredRequest {
	requestId: string;
	method: string;
	/** The route pattern (`/api/faxes/:slug`); undefined for answers given before routing. */
	route: string | undefined;
	status: number;
	durationMs: number;
	/** The client's rate-limit key, from which the log derives the client's network. */
	clientKey: string;
}

/** Sees every answer of the public listener once, and every error thrown while answering. */
export interface RequestObserver {
	answered(answer: AnsweredRequest): void;
	/** The answer that follows is a 500 or a 503. */
	failed(error: unknown, requestId: string): void;
}

/** The per-request answer state of Elysia, carrying the request's start beside its headers. */
interface MarkedSet {
	status?: number | string;
	headers: Record<string, string | number>;
	startedAt?: number;
}

const REQUEST_ID = "x-request-id";

/** The request id given to this request (also answered as X-Request-Id). */
export function requestIdOf(set: MarkedSet): string {
	return String(set.headers[REQUEST_ID] ?? "");
}

/**
 * Gives each request its id (answered as X-Request-Id) and reports each answer
 * to the observer with the time it took. Answers given by an `onRequest` hook
 * before routing (preflights, the 403) skip Elysia's later hooks; that hook
 * reports them through `reportEarly`.
 *
 * Hooks name the context fields they read instead of passing the context on:
 * Elysia infers from a hook's source what to prepare for every request, and a
 * context handed to a function would make it parse query, headers and cookies.
 */
export function requestLog(observer: RequestObserver, clientKey: ClientKeyResolver) {
	const report = (request: Request, set: MarkedSet, route: string | undefined, server: Peer) => {
		observer.answered({
			requestId: requestIdOf(set),
			method: request.method,
			route,
			status: typeof set.status === "number" ? set.status : Number(set.status ?? 200),
			durationMs: performance.now() - (set.startedAt ?? 0),
			clientKey: clientKeyOf(clientKey, request, set, server),
		});
	};
	const plugin = new Elysia()
		.onRequest(({ set }) => {
			(set as MarkedSet).startedAt = performance.now();
			set.headers[REQUEST_ID] = crypto.randomUUID();
		})
		// Handing the answer back unchanged: Elysia 1.4.30 answers an empty body
		// when a global mapResponse hook returns nothing after an error hook.
		.mapResponse({ as: "global" }, ({ request, set, route, server, responseValue }) => {
			report(request, set, route, server);
			return responseValue as Response;
		});
	return {
		plugin,
		reportEarly: (request: Request, set: MarkedSet, server: Peer) => report(request, set, undefined, server),
	};
}
