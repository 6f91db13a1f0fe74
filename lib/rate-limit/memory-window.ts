import { decide } from "./decision.ts";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";

export interface MemoryWindowOptions {
	limit: number;
	windowSeconds: number;
	/** Wall clock in milliseconds since the epoch, for `X-RateLimit-Reset` only; tests inject one. */
	now?: () => number;
	/**
	 * Monotonic clock in milliseconds, which the windows are measured on, so a
	 * step of the wall clock (NTP, a restored VM) neither holds a client for the
	 * size of the step nor ends its window early; tests inject one.
	 */
	monotonic?: () => number;
	/** Most windows kept at once; a flood of distinct keys evicts the oldest. */
	maxKeys?: number;
}

/** One key's window, linked into the list of windows ordered by their end. */
interface CountWindow {
	readonly key: string;
	count: number;
	endsAt: number;
	older: CountWindow | null;
	newer: CountWindow | null;
}

/** At 100,000 IPv6 /64 keys this holds about 25 MB (see docs/reliability.md). */
const DEFAULT_MAX_KEYS = 100_000;

// Most ended windows one hit drops. Dropping all 100,000 windows of a flood
// at once took about 50 ms; the rest go with the following hits, and the
// cap holds meanwhile because eviction takes ended windows first.
export const MAX_DROPPED_PER_HIT = 1024;

/**
 * In-process fixed window: the embedded default without Redis and the
 * fallback while Redis is unreachable.
 *
 * Every window lasts the same time, so appending a window when it opens (or
 * opens again) keeps the list ordered by end: expired windows and the one to
 * evict are always at its old end. The order is kept in the windows
 * themselves rather than taken from the Map's insertion order, because Bun's
 * Map iterators walk every slot deleted since the table was last rebuilt:
 * after a flood, finding the oldest key that way cost up to 100 µs. Lookup,
 * opening, renewal and eviction are a constant number of Map and pointer
 * operations, and a hit drops at most MAX_DROPPED_PER_HIT ended windows.
 */
export class MemoryWindowLimiter implements RateLimiter {
	private readonly limit: number;
	private readonly windowMs: number;
	private readonly now: () => number;
	private readonly monotonic: () => number;
	private readonly maxKeys: number;
	private readonly windows = new Map<string, CountWindow>();
	private oldest: CountWindow | null = null;
	private newest: CountWindow | null = null;

	constructor(options: MemoryWindowOptions) {
		this.limit = options.limit;
		this.windowMs = options.windowSeconds * 1000;
		this.now = options.now ?? Date.now;
		this.monotonic = options.monotonic ?? (() => performance.now());
		this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
	}

	/** Number of windows held, for tests of the memory bound. */
	get size(): number {
		return this.windows.size;
	}

	consume(key: string): Promise<RateLimitDecision> {
		return Promise.resolve(this.hit(key));
	}

	/** Synchronous form of consume(), so the failover path adds no await. */
	hit(key: string): RateLimitDecision {
		const now = this.monotonic();
		this.dropExpired(now);

		let window = this.windows.get(key);
		if (window === undefined) {
			if (this.windows.size >= this.maxKeys && this.oldest !== null) this.drop(this.oldest);
			window = { key, count: 0, endsAt: now + this.windowMs, older: null, newer: null };
			this.windows.set(key, window);
			this.append(window);
		} else if (now >= window.endsAt) {
			// An ended window the drop above did not reach (it drops a bounded
			// number per hit); renewing it moves it to the end of the order.
			this.unlink(window);
			window.count = 0;
			window.endsAt = now + this.windowMs;
			this.append(window);
		}

		window.count++;
		// Whole milliseconds: with performance.now()'s fractions, (t + w) - t can
		// exceed w by a rounding error, and a 5 s window's first answer said 6 s.
		return decide(this.limit, window.count, this.now(), Math.round(window.endsAt - now));
	}

	close(): Promise<void> {
		this.windows.clear();
		this.oldest = null;
		this.newest = null;
		return Promise.resolve();
	}

	private dropExpired(now: number): void {
		for (let dropped = 0; dropped < MAX_DROPPED_PER_HIT; dropped++) {
			if (this.oldest === null || this.oldest.endsAt > now) return;
			this.drop(this.oldest);
		}
	}

	private drop(window: CountWindow): void {
		this.unlink(window);
		this.windows.delete(window.key);
	}

	private append(window: CountWindow): void {
		window.older = this.newest;
		window.newer = null;
		if (this.newest === null) this.oldest = window;
		else this.newest.newer = window;
		this.newest = window;
	}

	private unlink(window: CountWindow): void {
		if (window.older === null) this.oldest = window.newer;
		else window.older.newer = window.newer;
		if (window.newer === null) this.newest = window.older;
		else window.newer.older = window.older;
		window.older = null;
		window.newer = null;
	}
}
