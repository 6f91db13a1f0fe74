import { afterEach, describe, expect, test } from "bun:test";
import { FailoverLimiter } from "../../lib/rate-limit/failover-limiter.ts";
import type { RateLimitDecision } from "../../lib/rate-limit/index.ts";
import { MemoryWindowLimiter } from "../../lib/rate-limit/memory-window.ts";
import { RedisWindowLimiter } from "../../lib/rate-limit/redis-window.ts";
import { captureLog } from "../../testkit/log.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

const fixture = useRedisServer();
const limiters: FailoverLimiter[] = [];

afterEach(async () => {
	await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
});

function failover(url: string) {
	const prefix = `test:rl:${crypto.randomUUID()}:`;
	const redis = new RedisWindowLimiter({
		connection: { mode: "single", url, tlsCa: null },
		limit: 60,
		windowSeconds: 60,
		prefix,
	});
	const memory = new MemoryWindowLimiter({ limit: 60, windowSeconds: 60 });
	const { logger, lines: logs } = captureLog();
	const limiter = new FailoverLimiter({ redis, memory, logger });
	limiters.push(limiter);
	return { limiter, redis, logs, prefix };
}

// Redis is paused far longer than the limiter's command timeout (100 ms,
// lib/rate-limit/redis-client.ts): an answer that waited for it would take
// seconds, one that skipped it comes in well under half of it whatever else
// loads the machine (a bound of 250 ms met 265 and 582 ms beside the suite).
const PAUSE_MS = 4000;
const COMMAND_TIMEOUT_MS = 100;

/** Consumes once and fails the test if the answer waited for a paused or stopped Redis. */
async function timedConsume(limiter: FailoverLimiter, key: string): Promise<RateLimitDecision> {
	const started = performance.now();
	const decision = await limiter.consume(key);
	expect(performance.now() - started).toBeLessThan(PAUSE_MS / 2);
	return decision;
}

async function untilBackend(limiter: FailoverLimiter, backend: "redis" | "memory", key: string) {
	const deadline = Date.now() + 5000;
	let decision = await timedConsume(limiter, key);
	while (limiter.backend !== backend) {
		if (Date.now() > deadline) throw new Error(`still counting in ${limiter.backend}`);
		await Bun.sleep(50);
		decision = await timedConsume(limiter, key);
	}
	return decision;
}

describe("FailoverLimiter", () => {
	test("counts in memory while Redis is stopped and goes back to Redis after its restart", async () => {
		const { limiter, redis, logs, prefix } = failover(fixture.server.url);
		expect(await redis.whenReady(2000)).toBe(true);

		for (let i = 0; i < 3; i++) await timedConsume(limiter, "k");
		expect(limiter.backend).toBe("redis");
		expect(await fixture.checker.get(`${prefix}k`)).toBe("3");
		expect(logs).toEqual([]);

		await fixture.server.stop();
		const answers: RateLimitDecision[] = [];
		for (let i = 0; i < 5; i++) answers.push(await timedConsume(limiter, "k"));
		expect(answers.map((answer) => answer.remaining)).toEqual([59, 58, 57, 56, 55]);
		expect(answers.every((answer) => answer.allowed)).toBe(true);
		expect(limiter.backend).toBe("memory");
		expect(logs).toHaveLength(1);
		expect(logs[0]?.level).toBe("warn");
		expect(logs[0]?.msg).toBe("rate limit: Redis unavailable; counting in process memory until it is back");
		expect(logs[0]?.reason).toBeString();
		expect(limiter.fallbacks).toBe(1);

		await fixture.server.restart();
		expect(await redis.whenReady(3000)).toBe(true);
		const probe = await untilBackend(limiter, "redis", "k");
		// The restarted Redis is empty: the request that found it again opened a new window there.
		expect(probe.remaining).toBe(59);
		expect(await fixture.checker.get(`${prefix}k`)).toBe("1");
		expect((await timedConsume(limiter, "k")).remaining).toBe(58);
		expect(await fixture.checker.get(`${prefix}k`)).toBe("2");
		expect(logs).toHaveLength(2);
		expect([logs[1]?.level, logs[1]?.msg]).toEqual([
			"info",
			"rate limit: Redis is reachable again; counting in Redis",
		]);
		expect(limiter.fallbacks).toBe(1);
	});

	test("a Redis slower than the command timeout is bypassed, then used again", async () => {
		const { limiter, redis, logs } = failover(fixture.server.url);
		expect(await redis.whenReady(2000)).toBe(true);
		await timedConsume(limiter, "k");

		// WRITE: the limiter's script waits, the checker's UNPAUSE below does not.
		await fixture.checker.call("CLIENT", "PAUSE", String(PAUSE_MS), "WRITE");
		expect((await timedConsume(limiter, "k")).remaining).toBe(59);
		expect(limiter.backend).toBe("memory");
		expect(logs.map((line) => [line.msg, line.reason])).toEqual([
			["rate limit: Redis unavailable; counting in process memory until it is back", "Command timed out"],
		]);
		// Within the retry delay, requests skip Redis instead of each waiting for a timeout:
		// twenty of them take less than twenty timeouts would.
		const started = performance.now();
		for (let i = 0; i < 20; i++) await limiter.consume("k");
		expect(performance.now() - started).toBeLessThan(20 * COMMAND_TIMEOUT_MS);

		await fixture.checker.call("CLIENT", "UNPAUSE");
		await untilBackend(limiter, "redis", "k");
		expect(logs).toHaveLength(2);
	});

	test("a Redis that was never reachable costs nothing per request and logs once", async () => {
		const { limiter, logs } = failover("redis://127.0.0.1:1");
		for (let i = 0; i < 100; i++) await timedConsume(limiter, "k");
		expect((await limiter.consume("k")).remaining).toBe(0);
		expect((await limiter.consume("k")).allowed).toBe(false);
		expect(limiter.backend).toBe("memory");
		expect(logs).toHaveLength(1);
	});
});
