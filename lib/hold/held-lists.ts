import type { FaxChange, RecentFaxes } from "../recent/index.ts";
import { noneMatchHits, type Representation } from "../representation/index.ts";
import { realTimer, type SetTimer } from "../util/index.ts";

/** What holding a GET needs of its connection; a HEAD, answered at once, has none. */
export interface HoldableRequest {
	/** The client's rate-limit key, which the per-client bound counts by. */
	clientKey: string;
	ifNoneMatch: string | null;
	/** Aborts when the client goes away. */
	signal: AbortSignal;
	/** Keeps the connection open this many seconds without traffic (Bun's idle timeout would cut it). */
	keepOpen(seconds: number): void;
}

/** A list request with `wait`. */
export interface ListWait extends HoldableRequest {
	/** The `wait` parameter, whole seconds. */
	seconds: number;
	/** The sender the list is filtered by: its match key, null for `Unknown`, undefined for every sender. */
	sender: string | null | undefined;
	/** The answer the request would get without `wait` at this time (Unix seconds): from memory at once, else awaited. */
	answerAt(nowSeconds: number): Representation | Promise<Representation>;
}

export interface HoldLimits {
	/** Requests one instance holds at once. */
	maxHeld: number;
	/** Requests one client key may have held on one instance at once. */
	maxPerClient: number;
}

interface Held {
	wait: ListWait;
	cancelTimer(): void;
	finish(answer: Representation): void;
	/** Answers with the failure (a 503 the front proxy may retry elsewhere) when no answer could be made. */
	fail(error: unknown): void;
	/** Answers with what the request would get now. */
	answerNow(): void;
}

// The time limit is shortened by up to this share at random, so that clients
// that asked together come back spread out, and never later than they asked.
export const SPREAD = 0.1;
// While anything is held, other processes' commits are looked for this often:
// one read of the WAL index header (or one PRAGMA data_version) each time.
const CHECK_INTERVAL_MS = 10;
// Past its time limit, a held connection stays open this much longer before Bun may cut it.
export const KEEP_OPEN_MARGIN_SECONDS = 5;
// After a change, the held requests it may concern are looked at again in
// turns of at most this long, other requests answered between turns: on
// PostgreSQL each answer memory cannot give is a round trip, and thousands of
// them in one go kept every other client waiting for seconds.
const RECHECK_TURN_MS = 5;

/**
 * The list requests with `wait` held by this instance. A request is answered
 * as soon as its answer differs from its `If-None-Match`, or is no longer
 * empty without one; else at its time limit with what it would get then.
 *
 * Held requests are kept by the sender they ask for, so a commit re-checks
 * only those it can change: the requests of the senders whose faxes came or
 * went, and those of every sender. With nothing held, no timer runs.
 */
export class HeldLists {
	readonly #faxes: RecentFaxes;
	readonly #limits: HoldLimits;
	readonly #clock: () => number;
	readonly #random: () => number;
	readonly #setTimer: SetTimer;
	/** Requests for every sender. */
	readonly #anySender = new Set<Held>();
	/** Requests for one sender, by match key; null holds those for `Unknown`. */
	readonly #bySender = new Map<string | null, Set<Held>>();
	readonly #perClient = new Map<string, number>();
	/** Held requests a change may concern, not looked at again yet. */
	readonly #toRecheck = new Set<Held>();
	/** A turn of looking again runs or is due. */
	#rechecking = false;
	#size = 0;
	#check: Timer | undefined;
	#released = false;

	constructor(
		faxes: RecentFaxes,
		limits: HoldLimits,
		options: { clock?: () => number; random?: () => number; setTimer?: SetTimer } = {},
	) {
		this.#faxes = faxes;
		this.#limits = limits;
		this.#clock = options.clock ?? Date.now;
		this.#random = options.random ?? Math.random;
		this.#setTimer = options.setTimer ?? realTimer;
		faxes.watch((change) => this.#wake(change));
	}

	/** Requests held now. */
	get size(): number {
		return this.#size;
	}

	/**
	 * The answer to `wait`: at once when it already has something new, when a
	 * bound is reached or the instance is stopping; else when it has, or at its
	 * time limit.
	 */
	hold(wait: ListWait): Representation | Promise<Representation> {
		const answer = wait.answerAt(this.#nowSeconds());
		if (answer instanceof Promise) return answer.then((awaited) => this.#holdAfter(wait, awaited));
		return this.#holdAfter(wait, answer);
	}

	#holdAfter(wait: ListWait, answer: Representation): Representation | Promise<Representation> {
		if (this.#released || isNews(wait, answer) || !this.#hasRoomFor(wait.clientKey)) return answer;
		return new Promise((resolve, reject) => this.#add(wait, resolve, reject));
	}

	/** Answers every held request at once, with what it would get at its time limit, and holds no more. */
	releaseAll(): void {
		this.#released = true;
		for (const held of this.#all()) held.answerNow();
	}

	#nowSeconds(): number {
		return Math.floor(this.#clock() / 1000);
	}

	#hasRoomFor(clientKey: string): boolean {
		return (
			this.#size < this.#limits.maxHeld && (this.#perClient.get(clientKey) ?? 0) < this.#limits.maxPerClient
		);
	}

	#add(wait: ListWait, resolve: (answer: Representation) => void, reject: (error: unknown) => void): void {
		const limitMs = wait.seconds * 1000 * (1 - SPREAD * this.#random());
		wait.keepOpen(wait.seconds + KEEP_OPEN_MARGIN_SECONDS);
		const group = this.#groupOf(wait.sender);
		const held: Held = {
			wait,
			cancelTimer: this.#setTimer(() => held.answerNow(), limitMs),
			finish: (answer) => {
				this.#remove(held, group);
				resolve(answer);
			},
			fail: (error) => {
				this.#remove(held, group);
				reject(error);
			},
			// What memory holds of the commits made until now, then the answer from it.
			answerNow: () => {
				Promise.resolve(this.#faxes.settle())
					.then(() => wait.answerAt(this.#nowSeconds()))
					.then(held.finish, held.fail);
			},
		};
		group.add(held);
		wait.signal.addEventListener("abort", held.answerNow, { once: true });
		this.#perClient.set(wait.clientKey, (this.#perClient.get(wait.clientKey) ?? 0) + 1);
		if (this.#size++ === 0) this.#check = setInterval(() => this.#catchUp(), CHECK_INTERVAL_MS);
	}

	/**
	 * Looks for other processes' commits. A database that cannot tell answers
	 * every held request now, with its failure (a 503 the front proxy retries
	 * on another instance), rather than at each one's time limit: a client
	 * whose instance lost its database waits about a second more, not its
	 * whole `wait` twice.
	 */
	#catchUp(): void {
		this.#faxes.catchUp().catch((error) => {
			for (const held of this.#all()) held.fail(error);
		});
	}

	#groupOf(sender: string | null | undefined): Set<Held> {
		if (sender === undefined) return this.#anySender;
		let group = this.#bySender.get(sender);
		if (group === undefined) {
			group = new Set();
			this.#bySender.set(sender, group);
		}
		return group;
	}

	#remove(held: Held, group: Set<Held>): void {
		if (!group.delete(held)) return;
		held.cancelTimer();
		this.#toRecheck.delete(held);
		held.wait.signal.removeEventListener("abort", held.answerNow);
		const { clientKey, sender } = held.wait;
		if (group.size === 0 && sender !== undefined) this.#bySender.delete(sender);
		const count = (this.#perClient.get(clientKey) ?? 1) - 1;
		if (count === 0) this.#perClient.delete(clientKey);
		else this.#perClient.set(clientKey, count);
		if (--this.#size === 0) clearInterval(this.#check);
	}

	#wake(change: FaxChange): void {
		if (this.#size === 0) return;
		for (const held of change.unattributed ? this.#all() : this.#affectedBy(change.senders))
			this.#toRecheck.add(held);
		// A change found while a turn runs (an answer's own refresh) joins that turn.
		if (!this.#rechecking) this.#recheckTurn();
	}

	/** Looks again at held requests for up to RECHECK_TURN_MS, answering those with news; the rest in a later turn. */
	#recheckTurn(): void {
		this.#rechecking = true;
		const until = performance.now() + RECHECK_TURN_MS;
		const now = this.#nowSeconds();
		for (const held of this.#toRecheck) {
			this.#toRecheck.delete(held);
			const finishIfNews = (answer: Representation) => {
				if (isNews(held.wait, answer)) held.finish(answer);
			};
			try {
				const answer = held.wait.answerAt(now);
				// A database that cannot answer now: the request stays held, its time limit answers it.
				if (answer instanceof Promise) answer.then(finishIfNews, () => {});
				else finishIfNews(answer);
			} catch {}
			if (performance.now() >= until) break;
		}
		if (this.#toRecheck.size > 0) setImmediate(() => this.#recheckTurn());
		else this.#rechecking = false;
	}

	/** Copies, so that finishing a request while walking them is safe. */
	#all(): Held[] {
		const all = [...this.#anySender];
		for (const group of this.#bySender.values()) all.push(...group);
		return all;
	}

	#affectedBy(senders: ReadonlySet<string | null>): Held[] {
		const affected = [...this.#anySender];
		for (const sender of senders) {
			const group = this.#bySender.get(sender);
			if (group !== undefined) affected.push(...group);
		}
		return affected;
	}
}

/** Whether `answer` is worth answering before the time limit. */
function isNews(wait: ListWait, answer: Representation): boolean {
	return wait.ifNoneMatch === null ? answer.text !== "[]" : !noneMatchHits(wait.ifNoneMatch, answer.etag);
}
