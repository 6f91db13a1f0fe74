import type { Config } from "../config.ts";
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
export async function createRateLimiter(
	config: Config,
	options: { clock: () => number; log: (line: string) => void },
): Promise<RateLimiter> {
	const memory = new MemoryWindowLimiter({
		limit: config.rateLimitPerMinute,
		windowSeconds: config.rateLimitWindowSeconds,
		now: options.clock,
	});
	if (config.redisUrl === null) return memory;
	const redis = new RedisWindowLimiter({
		url: config.redisUrl,
		limit: config.rateLimitPerMinute,
		windowSeconds: config.rateLimitWindowSeconds,
		prefix: config.rateLimitPrefix,
		commandTimeoutMs: config.redisTimeoutMs,
	});
	// Not ready in time: the failover limiter says so (once) at the first request.
	await redis.whenReady(FIRST_CONNECT_WAIT_MS);
	return new FailoverLimiter({ redis, memory, log: options.log });
}
