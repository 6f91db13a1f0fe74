// The shared fixed-window count: in Redis, in process memory, and the failover between them.
export {
	createRateLimiter,
	type RateLimit,
	type RateLimitBackend,
	type RateLimitSettings,
	type RateLimitStatus,
} from "./create-limiter.ts";
export { MemoryWindowLimiter } from "./memory-window.ts";
export type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";
export { HIT_SCRIPT } from "./redis-window.ts";
