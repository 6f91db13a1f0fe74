import { decide } from "./decision.ts";
import type { RateLimitDecision } from "./rate-limiter.ts";

/** Past this many keys held, all are forgotten at once; Redis still refuses them. */
const DEFAULT_MAX_KEYS = 100_000;

/**
 * Keys over their limit, each with its window's end on the monotonic clock.
 * In a fixed window the count only rises, so a key refused once is refused
 * until its window ends, and that answer needs no Redis round trip: a client
 * flooding past its limit costs Redis one command per window, not one per
 * request (as @upstash/ratelimit's ephemeral cache does).
 *
 * An entry is dropped when it is found ended. Entries of keys never seen
 * again stay until the map is full; it is then emptied in one step rather
 * than walked, since Bun's Map iterators cost the slots deleted before
 * (lib/rate-limit/memory-window.ts).
 */
export class RefusedKeys {
	private readonly limit: number;
	private readonly maxKeys: number;
	private readonly ends = new Map<string, number>();

	constructor(limit: number, maxKeys = DEFAULT_MAX_KEYS) {
		this.limit = limit;
		this.maxKeys = maxKeys;
	}

	/** The refusal of `key` while its window lasts, with the headers Redis's answer gave; null otherwise. */
	refusal(key: string): RateLimitDecision | null {
		const endsAt = this.ends.get(key);
		if (endsAt === undefined) return null;
		const msLeft = endsAt - performance.now();
		if (msLeft <= 0) {
			this.ends.delete(key);
			return null;
		}
		return decide(this.limit, this.limit + 1, Date.now(), msLeft);
	}

	/**
	 * Remembers a refusal whose window had `msLeft` when Redis answered a
	 * command sent at `sentAt` (performance.now()): measured from the sending,
	 * the end is never later than Redis's own.
	 */
	remember(key: string, sentAt: number, msLeft: number): void {
		if (this.ends.size >= this.maxKeys) this.ends.clear();
		this.ends.set(key, sentAt + msLeft);
	}

	/** Keys held, for tests of the bound. */
	get size(): number {
		return this.ends.size;
	}
}
