import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import type { RateLimiter } from "../rate-limit/index.ts";
import { clientKeyOf } from "./client-key.ts";
import { ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { rateLimitField, rateLimitPolicy } from "./rate-limit-fields.ts";

const TOO_MANY = messageJson(ERROR_MESSAGES.tooMany);

/**
 * The route option `rateLimited: true`: counts the request against its
 * client's window before the handler runs, sets the rate-limit headers (the
 * X-RateLimit ones and those of the IETF draft), and answers 429 once the
 * window is used up.
 */
export function rateLimit(limiter: RateLimiter, clientKey: ClientKeyResolver, windowSeconds: number) {
	return new Elysia().macro({
		rateLimited: {
			async beforeHandle({ request, server, set }) {
				const decision = await limiter.consume(clientKeyOf(clientKey, request, set, server));
				set.headers["x-ratelimit-limit"] = String(decision.limit);
				set.headers["x-ratelimit-remaining"] = String(decision.remaining);
				set.headers["ratelimit-policy"] = rateLimitPolicy(decision.limit, windowSeconds);
				set.headers.ratelimit = rateLimitField(decision.remaining, decision.retryAfter);
				if (decision.allowed) return;
				set.headers["retry-after"] = String(decision.retryAfter);
				set.headers["x-ratelimit-reset"] = String(decision.resetAt);
				set.headers["content-type"] = JSON_TYPE;
				set.status = 429;
				return TOO_MANY;
			},
		},
	});
}
