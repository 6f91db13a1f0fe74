import { describe, expect, test } from "bun:test";
import { MemoryWindowLimiter } from "../../lib/rate-limit/memory-window.ts";

const T0 = 1_700_000_000_000;

function clock(start = T0) {
	const state = { now: start };
	return { state, now: () => state.now };
}

describe("MemoryWindowLimiter", () => {
	test("counts down from the limit and refuses the 61st request", async () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now,
		});

		expect(await limiter.consume("a")).toEqual({
			allowed: true,
			limit: 60,
			remaining: 59,
			resetAt: 1_700_000_060,
			retryAfter: 60,
		});
		for (let i = 2; i < 60; i++) await limiter.consume("a");
		expect(await limiter.consume("a")).toEqual({
			allowed: true,
			limit: 60,
			remaining: 0,
			resetAt: 1_700_000_060,
			retryAfter: 60,
		});

		state.now = T0 + 30_500;
		expect(await limiter.consume("a")).toEqual({
			allowed: false,
			limit: 60,
			remaining: 0,
			resetAt: 1_700_000_060,
			retryAfter: 30,
		});
	});

	test("later requests do not extend the window, and Retry-After is at least 1", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 2,
			windowSeconds: 60,
			now,
		});
		limiter.hit("a");
		state.now = T0 + 59_000;
		expect(limiter.hit("a")).toMatchObject({
			remaining: 0,
			resetAt: 1_700_000_060,
			retryAfter: 1,
		});
		state.now = T0 + 59_999;
		expect(limiter.hit("a")).toMatchObject({
			allowed: false,
			resetAt: 1_700_000_060,
			retryAfter: 1,
		});
	});

	test("a new window opens once the old one has ended", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 1,
			windowSeconds: 60,
			now,
		});
		expect(limiter.hit("a").allowed).toBe(true);
		expect(limiter.hit("a").allowed).toBe(false);

		state.now = T0 + 60_000;
		expect(limiter.hit("a")).toEqual({
			allowed: true,
			limit: 1,
			remaining: 0,
			resetAt: 1_700_000_120,
			retryAfter: 60,
		});
	});

	test("keys count separately", () => {
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now: clock().now,
		});
		limiter.hit("a");
		limiter.hit("a");
		expect(limiter.hit("b").remaining).toBe(59);
		expect(limiter.hit("a").remaining).toBe(57);
	});

	test("expired windows are dropped", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now,
		});
		for (let i = 0; i < 1000; i++) limiter.hit(`early-${i}`);
		state.now = T0 + 30_000;
		for (let i = 0; i < 500; i++) limiter.hit(`late-${i}`);
		expect(limiter.size).toBe(1500);

		state.now = T0 + 60_000;
		limiter.hit("early-0");
		expect(limiter.size).toBe(501);

		state.now = T0 + 90_000;
		limiter.hit("x");
		expect(limiter.size).toBe(2);
	});

	test("a flood of 100k distinct keys stays within maxKeys, evicting the oldest windows", () => {
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now: clock().now,
			maxKeys: 10_000,
		});
		for (let i = 0; i < 100_000; i++) limiter.hit(`k${i}`);
		expect(limiter.size).toBe(10_000);
		// The newest windows survive with their counts; the oldest were evicted.
		expect(limiter.hit("k99999").remaining).toBe(58);
		expect(limiter.hit("k0").remaining).toBe(59);
		expect(limiter.size).toBe(10_000);
	});

	test("the default cap bounds memory too", () => {
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now: clock().now,
		});
		for (let i = 0; i < 150_000; i++) limiter.hit(`k${i}`);
		expect(limiter.size).toBe(100_000);
	});

	test("close() forgets every window", async () => {
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now: clock().now,
		});
		limiter.hit("a");
		await limiter.close();
		expect(limiter.size).toBe(0);
		expect(limiter.hit("a").remaining).toBe(59);
	});
});
