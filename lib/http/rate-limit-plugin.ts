import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import type { RateLimiter } from "../rate-limit/index.ts";
import { clientKeyOf, type Peer } from "./client-key.ts";
import { ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { rateLimitField, rateLimitPolicy } from "./rate-limit-fields.ts";

const TOO_MANY = messageJson(ERROR_MESSAGES.tooMany);

/** The request counted against its client's window: the rate-limit headers set, and the 429 body once used up. */
export type CountRequest = (request: Request, server: Peer, set: AnswerState) => Promise<string | undefined>;

/** Elysia's per-request answer state, as far as counting writes it. */
export interface AnswerState {
	headers: Record<string, string | number>;
	status?: number | string;
}

/**
 * Counts a request against its client's window, sets the rate-limit headers
 * (the X-RateLimit ones and those of the IETF draft), and gives the 429 body
 * once the window is used up.
 */
export function countRequest(
	limiter: RateLimiter,
	clientKey: ClientKeyResolver,
	windowSeconds: number,
): CountRequest {
	return async (request, server, set) => {
		const decision = await limiter.consume(clientKeyOf(clientKey, request, set, server));
		set.headers["x-ratelimit-limit"] = String(decision.limit);
		set.headers["x-ratelimit-remaining"] = String(decision.remaining);
		set.headers["ratelimit-policy"] = rateLimitPolicy(decision.limit, windowSeconds);
		set.headers.ratelimit = rateLimitField(decision.remaining, decision.retryAfter);
		if (decision.allowed) return undefined;
		set.headers["retry-after"] = String(decision.retryAfter);
		set.headers["x-ratelimit-reset"] = String(decision.resetAt);
		set.headers["content-type"] = JSON_TYPE;
		set.status = 429;
		return TOO_MANY;
	};
}

/** The route option `rateLimited: true`: the request is counted before the handler runs, which a 429 replaces. */
export function rateLimit(count: CountRequest) {
	return new Elysia().macro({
		rateLimited: {
			beforeHandle({ request, server, set }) {
				return count(request, server, set);
			},
		},
	});
}
