import { decide } from "./decision.ts";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";

export interface MemoryWindowOptions {
	limit: number;
	windowSeconds: number;
	/** Clock in milliseconds; tests inject one to move time. */
	now?: () => number;
	/** Most windows kept at once; a flood of distinct keys evicts the oldest. */
	maxKeys?: number;
}

interface CountWindow {
	count: number;
	endsAt: number;
}

const DEFAULT_MAX_KEYS = 100_000;

/**
 * In-process fixed window: the embedded default without Redis and the
 * fallback while Redis is unreachable.
 *
 * Every window lasts the same time and a renewed window is re-inserted, so the
 * Map's insertion order is also the order in which windows end. Expired
 * windows therefore sit at the front: they are dropped from there, and only
 * when the oldest one has ended, so most calls do no sweeping at all.
 */
export class MemoryWindowLimiter implements RateLimiter {
	private readonly limit: number;
	private readonly windowMs: number;
	private readonly now: () => number;
	private readonly maxKeys: number;
	private readonly windows = new Map<string, CountWindow>();
	private oldestEndsAt = Number.POSITIVE_INFINITY;

	constructor(options: MemoryWindowOptions) {
		this.limit = options.limit;
		this.windowMs = options.windowSeconds * 1000;
		this.now = options.now ?? Date.now;
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
		const now = this.now();
		if (now >= this.oldestEndsAt) this.dropExpired(now);

		let window = this.windows.get(key);
		if (window === undefined) {
			if (this.windows.size >= this.maxKeys) this.evictOldest();
			window = { count: 0, endsAt: now + this.windowMs };
			this.windows.set(key, window);
			if (window.endsAt < this.oldestEndsAt) this.oldestEndsAt = window.endsAt;
		} else if (now >= window.endsAt) {
			// Re-insert so the renewed window moves to the back of the end order.
			this.windows.delete(key);
			window.count = 0;
			window.endsAt = now + this.windowMs;
			this.windows.set(key, window);
		}

		window.count++;
		return decide(this.limit, window.count, now, window.endsAt - now);
	}

	close(): Promise<void> {
		this.windows.clear();
		this.oldestEndsAt = Number.POSITIVE_INFINITY;
		return Promise.resolve();
	}

	private dropExpired(now: number): void {
		for (const [key, window] of this.windows) {
			// A clock that stepped back can leave an expired window behind a live
			// one; it is renewed on its next hit or dropped when it reaches the front.
			if (window.endsAt > now) {
				this.oldestEndsAt = window.endsAt;
				return;
			}
			this.windows.delete(key);
		}
		this.oldestEndsAt = Number.POSITIVE_INFINITY;
	}

	private evictOldest(): void {
		const oldest = this.windows.keys().next();
		// oldestEndsAt may now be too early; that only costs one sweep that
		// stops at the first live window and corrects it.
		if (!oldest.done) this.windows.delete(oldest.value);
	}
}
