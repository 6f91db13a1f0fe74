/**
 * The service's Redis round trip as the yardsticks make it: one EVALSHA of
 * the same script, ioredis with enableAutoPipelining, keyed by
 * X-Forwarded-For as the benchmark sends it.
 */
import { Redis } from "ioredis";
import { HIT_SCRIPT } from "../lib/rate-limit/index.ts";
import { completeTracingChannel } from "../lib/util/index.ts";

interface WindowClient extends Redis {
	rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
}

/** Counts a request of `client` in Redis; resolves to the count in its window and the milliseconds left. */
export function redisCounter(url: string, prefix: string): (client: string) => Promise<[number, number]> {
	// The same runtime set-up as the service's, so the round trip costs the same.
	completeTracingChannel();
	const redis = new Redis(url, { enableAutoPipelining: true }) as WindowClient;
	redis.defineCommand("rateLimitHit", { lua: HIT_SCRIPT, numberOfKeys: 1 });
	return (client) => redis.rateLimitHit(prefix + client, 60_000);
}
