import { Elysia } from "elysia";
import type { ClientKeyResolver } from "../net/index.ts";
import type { RateLimiter } from "../rate-limit/index.ts";
import { clientKeyOf } from "./client-key.ts";
import { JSON_TYPE } from "./json.ts";

const TOO_MANY = '{"message":"Too Many Attempts."}';

/**
 * The route option `rateLimited: true`: counts the request against its
 * client's window before the handler runs, sets the rate-limit headers, and
 * answers 429 once the window is used up.
 */
export function rateLimit(limiter: RateLimiter, clientKey: ClientKeyResolver) {
	return new Elysia().macro({
		rateLimited: {
			async beforeHandle({ request, server, set }) {
				const decision = await limiter.consume(clientKeyOf(clientKey, request, set, server));
				set.headers["x-ratelimit-limit"] = String(decision.limit);
				set.headers["x-ratelimit-remaining"] = String(decision.remaining);
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
