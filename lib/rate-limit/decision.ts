import type { RateLimitDecision } from "./rate-limiter.ts";

/**
 * Builds the decision for the `count`-th request of a window that ends in
 * `msLeft` milliseconds; both backends share it so their headers agree.
 */
export function decide(limit: number, count: number, nowMs: number, msLeft: number): RateLimitDecision {
	const allowed = count <= limit;
	return {
		allowed,
		limit,
		remaining: allowed ? limit - count : 0,
		resetAt: Math.ceil((nowMs + msLeft) / 1000),
		retryAfter: Math.max(1, Math.ceil(msLeft / 1000)),
	};
}
