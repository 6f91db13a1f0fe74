import type { RedisConnection } from "../config.ts";
import type { Logger } from "../log/index.ts";
import { FailoverLimiter } from "./failover-limiter.ts";
import { MemoryWindowLimiter } from "./memory-window.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { RedisWindowLimiter } from "./redis-window.ts";

// How long start-up waits for a first Redis connection; past it the server
// starts anyway and counts in process memory until Redis answers.
const FIRST_CONNECT_WAIT_MS = 2000;

/**
 * The in-process window is the embedded default; with REDIS_URL the count lives
 * in Redis and the in-process window only stands in while Redis is unreachable.
 */
export interface RateLimitSettings {
	/** Requests allowed per window and key. */
	limit: number;
	windowSeconds: number;
	/** Redis for a count shared by every instance; null counts in this process. */
	redis: RedisConnection | null;
	/** Prefix of the Redis keys. */
	prefix: string;
	/** Longest wait for Redis before a request is counted in process memory. */
	redisTimeoutMs: number;
}

/**
 * Which store counts now: Redis, process memory as configured (no REDIS_URL),
 * or process memory standing in while Redis is unreachable.
 */
export type RateLimitBackend = "redis" | "memory" | "memory-fallback";

export interface RateLimitStatus {
	backend: RateLimitBackend;
	/** How the Redis of the count is reached; null without Redis. */
	redisMode: RedisConnection["mode"] | null;
	/** Switches from Redis to process memory since start. */
	fallbacks: number;
	/** Requests counted in process memory because Redis could not count them, since start. */
	countedInMemory: number;
}

export interface RateLimit {
	limiter: RateLimiter;
	/** For readiness and metrics; never touches Redis. */
	status(): RateLimitStatus;
}

const IN_MEMORY: RateLimitStatus = { backend: "memory", redisMode: null, fallbacks: 0, countedInMemory: 0 };

export async function createRateLimiter(
	settings: RateLimitSettings,
	options: { clock: () => number; monotonic?: () => number; logger: Logger },
): Promise<RateLimit> {
	const memory = new MemoryWindowLimiter({
		limit: settings.limit,
		windowSeconds: settings.windowSeconds,
		now: options.clock,
		monotonic: options.monotonic,
	});
	if (settings.redis === null) return { limiter: memory, status: () => IN_MEMORY };
	const mode = settings.redis.mode;
	const redis = new RedisWindowLimiter({
		connection: settings.redis,
		limit: settings.limit,
		windowSeconds: settings.windowSeconds,
		prefix: settings.prefix,
		commandTimeoutMs: settings.redisTimeoutMs,
	});
	// Not ready in time: the failover limiter says so (once) at the first request.
	await redis.whenReady(FIRST_CONNECT_WAIT_MS);
	const failover = new FailoverLimiter({ redis, memory, logger: options.logger });
	return {
		limiter: failover,
		status: () => ({
			backend: failover.backend === "redis" ? "redis" : "memory-fallback",
			redisMode: mode,
			fallbacks: failover.fallbacks,
			countedInMemory: failover.countedInMemory,
		}),
	};
}
