import { afterEach, describe, expect, test } from "bun:test";
import { RedisWindowLimiter } from "../../lib/rate-limit/redis-window.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

const redis = useRedisServer();
const limiters: RedisWindowLimiter[] = [];

afterEach(async () => {
	await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
});

const uniquePrefix = redis.uniquePrefix;

async function connectedLimiter(
	options: { limit?: number; windowSeconds?: number; prefix?: string } = {},
): Promise<RedisWindowLimiter> {
	const limiter = new RedisWindowLimiter({
		connection: { mode: "single", url: redis.server.url, tlsCa: null },
		limit: options.limit ?? 60,
		windowSeconds: options.windowSeconds ?? 60,
		prefix: options.prefix ?? uniquePrefix(),
	});
	limiters.push(limiter);
	expect(await limiter.whenReady(2000)).toBe(true);
	return limiter;
}

describe("RedisWindowLimiter", () => {
	test("counts down from the limit and refuses the 61st request", async () => {
		const prefix = uniquePrefix();
		const limiter = await connectedLimiter({ prefix });
		const started = Date.now();

		const first = await limiter.consume("203.0.113.7");
		expect(first).toMatchObject({
			allowed: true,
			limit: 60,
			remaining: 59,
			retryAfter: 60,
		});
		for (let i = 2; i < 60; i++) await limiter.consume("203.0.113.7");
		expect(await limiter.consume("203.0.113.7")).toMatchObject({
			allowed: true,
			limit: 60,
			remaining: 0,
			retryAfter: 60,
		});
		const refused = await limiter.consume("203.0.113.7");
		const finished = Date.now();
		expect(refused).toMatchObject({
			allowed: false,
			limit: 60,
			remaining: 0,
			retryAfter: 60,
		});
		// The window ends 60 s after the first request, whichever of these it was.
		expect(refused.resetAt).toBe(first.resetAt);
		expect(refused.resetAt).toBeGreaterThanOrEqual(Math.ceil((started + 60_000) / 1000));
		expect(refused.resetAt).toBeLessThanOrEqual(Math.ceil((finished + 60_000) / 1000));

		expect(await redis.checker.get(`${prefix}203.0.113.7`)).toBe("61");
		const ttl = await redis.checker.pttl(`${prefix}203.0.113.7`);
		expect(ttl).toBeGreaterThan(59_000);
		expect(ttl).toBeLessThanOrEqual(60_000);
	});

	test("a short window resets once it has ended and is not extended by later requests", async () => {
		const prefix = uniquePrefix();
		const limiter = await connectedLimiter({
			limit: 2,
			windowSeconds: 1,
			prefix,
		});

		expect(await limiter.consume("k")).toMatchObject({
			allowed: true,
			remaining: 1,
			retryAfter: 1,
		});
		await Bun.sleep(600);
		expect(await limiter.consume("k")).toMatchObject({
			allowed: true,
			remaining: 0,
			retryAfter: 1,
		});
		expect(await redis.checker.pttl(`${prefix}k`)).toBeLessThanOrEqual(400);
		expect(await limiter.consume("k")).toMatchObject({
			allowed: false,
			remaining: 0,
			retryAfter: 1,
		});

		await Bun.sleep(500);
		expect(await limiter.consume("k")).toMatchObject({
			allowed: true,
			limit: 2,
			remaining: 1,
			retryAfter: 1,
		});
		expect(await redis.checker.get(`${prefix}k`)).toBe("1");
	});

	test("two instances on one Redis share every count", async () => {
		const prefix = uniquePrefix();
		const one = await connectedLimiter({ prefix });
		const two = await connectedLimiter({ prefix });

		expect((await one.consume("k")).remaining).toBe(59);
		expect((await two.consume("k")).remaining).toBe(58);
		expect((await one.consume("k")).remaining).toBe(57);
		expect(await redis.checker.get(`${prefix}k`)).toBe("3");
	});

	test("different prefixes keep deployments apart", async () => {
		const one = await connectedLimiter();
		const two = await connectedLimiter();

		await one.consume("k");
		await one.consume("k");
		expect((await two.consume("k")).remaining).toBe(59);
	});

	test("the script is loaded again after Redis forgot it", async () => {
		const limiter = await connectedLimiter();
		await limiter.consume("k");
		await redis.checker.script("FLUSH");
		expect((await limiter.consume("k")).remaining).toBe(58);
	});

	test("a key left without a TTL gets one instead of living forever", async () => {
		const prefix = uniquePrefix();
		const limiter = await connectedLimiter({ windowSeconds: 60, prefix });
		await redis.checker.set(`${prefix}k`, "5");
		expect((await limiter.consume("k")).remaining).toBe(54);
		expect(await redis.checker.pttl(`${prefix}k`)).toBeGreaterThan(59_000);
	});

	test("consume() rejects quickly when Redis is unreachable", async () => {
		const limiter = new RedisWindowLimiter({
			connection: { mode: "single", url: "redis://127.0.0.1:1", tlsCa: null },
			limit: 60,
			windowSeconds: 60,
			prefix: uniquePrefix(),
		});
		limiters.push(limiter);
		const started = performance.now();
		const failure = await limiter.consume("k").then(
			() => null,
			(error: unknown) => error,
		);
		expect(performance.now() - started).toBeLessThan(250);
		expect(failure).toBeInstanceOf(Error);
		expect(limiter.status).not.toBe("ready");
	});
});
