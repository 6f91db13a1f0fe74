import { describe, expect, test } from "bun:test";
import { MAX_DROPPED_PER_HIT, MemoryWindowLimiter } from "../../lib/rate-limit/memory-window.ts";

const T0 = 1_700_000_000_000;

function clock(start = T0) {
	const state = { now: start };
	return { state, now: () => state.now };
}

/** A clock that does not move, as both the wall and the monotonic clock. */
function steady() {
	const { now } = clock();
	return { now, monotonic: now };
}

describe("MemoryWindowLimiter", () => {
	test("counts down from the limit and refuses the 61st request", async () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now,
			monotonic: now,
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

	test("a monotonic clock with a fraction of a millisecond never makes a window last a second longer", () => {
		// performance.now() has fractions: (t + 5000) - t is 5000.000000000001 here,
		// and the first request of a 5 s window said Retry-After and t=6.
		const fractional = 4180.756996006729;
		const limiter = new MemoryWindowLimiter({
			limit: 1,
			windowSeconds: 5,
			now: () => T0,
			monotonic: () => fractional,
		});
		expect(limiter.hit("a")).toMatchObject({ remaining: 0, retryAfter: 5, resetAt: 1_700_000_005 });
	});

	test("later requests do not extend the window, and Retry-After is at least 1", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 2,
			windowSeconds: 60,
			now,
			monotonic: now,
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
			monotonic: now,
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
			...steady(),
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
			monotonic: now,
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
			...steady(),
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
			...steady(),
		});
		for (let i = 0; i < 150_000; i++) limiter.hit(`k${i}`);
		expect(limiter.size).toBe(100_000);
	});

	test("a wall clock stepped an hour back or ahead moves neither the window nor Retry-After, only X-RateLimit-Reset", () => {
		for (const step of [-3_600_000, 3_600_000]) {
			const wall = { now: T0 };
			const steady = { now: 5_000 };
			const limiter = new MemoryWindowLimiter({
				limit: 60,
				windowSeconds: 60,
				now: () => wall.now,
				monotonic: () => steady.now,
			});
			for (let i = 0; i < 60; i++) limiter.hit("a");
			wall.now = T0 + 10_000 + step;
			steady.now += 10_000;
			expect(limiter.hit("a")).toEqual({
				allowed: false,
				limit: 60,
				remaining: 0,
				resetAt: (T0 + 60_000 + step) / 1000,
				retryAfter: 50,
			});
			wall.now += 50_000;
			steady.now += 50_000;
			expect(limiter.hit("a")).toMatchObject({ allowed: true, remaining: 59 });
		}
	});

	test("hits never walk the Map: its iterators in Bun step over every slot deleted since the last rebuild", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			now,
			monotonic: now,
			maxKeys: 1000,
		});
		const walks: string[] = [];
		const proto = Map.prototype as unknown as Record<PropertyKey, unknown>;
		const names: PropertyKey[] = ["keys", "values", "entries", "forEach", Symbol.iterator];
		const originals = names.map((name) => proto[name] as (...args: unknown[]) => unknown);
		names.forEach((name, index) => {
			const original = originals[index] as (...args: unknown[]) => unknown;
			proto[name] = function (this: unknown, ...args: unknown[]) {
				walks.push(String(name));
				return original.apply(this, args);
			};
		});
		try {
			// Evictions at the cap, then every window ending at once, then renewals.
			for (let i = 0; i < 5000; i++) limiter.hit(`flood-${i}`);
			state.now = T0 + 60_000;
			limiter.hit("normal");
			for (let i = 0; i < 1500; i++) limiter.hit(`flood-${i}`);
		} finally {
			names.forEach((name, index) => {
				proto[name] = originals[index];
			});
		}
		expect(walks).toEqual([]);
		expect(limiter.size).toBe(1000);
	});

	test("one hit drops a bounded number of ended windows; the following hits drop the rest", () => {
		const { state, now } = clock();
		const limiter = new MemoryWindowLimiter({ limit: 60, windowSeconds: 60, now, monotonic: now });
		const flood = 3 * MAX_DROPPED_PER_HIT + 10;
		for (let i = 0; i < flood; i++) limiter.hit(`flood-${i}`);
		state.now = T0 + 60_000;
		limiter.hit("a");
		expect(limiter.size).toBe(flood - MAX_DROPPED_PER_HIT + 1);
		for (let i = 0; i < 3; i++) limiter.hit("a");
		expect(limiter.size).toBe(1);
		// An ended window still held counts from zero again.
		for (let i = 0; i < flood; i++) limiter.hit(`flood-${i}`);
		state.now = T0 + 120_000;
		expect(limiter.hit(`flood-${flood - 1}`)).toMatchObject({ remaining: 59, resetAt: 1_700_000_180 });
	});

	test("close() forgets every window", async () => {
		const limiter = new MemoryWindowLimiter({
			limit: 60,
			windowSeconds: 60,
			...steady(),
		});
		limiter.hit("a");
		await limiter.close();
		expect(limiter.size).toBe(0);
		expect(limiter.hit("a").remaining).toBe(59);
	});
});
