import { type HoldableRequest, type HoldLimits, KEEP_OPEN_MARGIN_SECONDS, SPREAD } from "../hold/index.ts";
import { realTimer, type SetTimer } from "../util/index.ts";
import type { CallFilter, CallsShown } from "./calls-shown.ts";

// While a stream is open, the calls are looked at this often: one read of the
// commit count each time, a read of the table only after a commit. Within the
// 1 s the pages promise, with the feed's own 200 ms spacing before it.
const CHECK_INTERVAL_MS = 100;

const encoder = new TextEncoder();

interface Stream {
	filter: CallFilter;
	clientKey: string;
	last: string | null;
	/** Sends `event` (the calls' text in an event) when `calls` differs from what was last sent. */
	send(calls: string, event: Uint8Array): void;
	close(): void;
	/** Ends the stream's hold: its timer, its listener, its place in the bounds. */
	end(): void;
}

export interface StreamOptions {
	clock?: () => number;
	random?: () => number;
	setTimer?: SetTimer;
}

function filterKey(filter: CallFilter): string {
	return filter.kind === "key" ? `key:${filter.key}` : filter.kind;
}

/**
 * The pages' streams of calls in progress (GET /faxtest/calls): one request
 * that stays open up to its time limit and carries every change as a
 * server-sent event, so a page sees each line of a call within a second for
 * one counted request every half minute. Bounded like the held lists: past
 * the limits, a stream carries the calls once and ends at once.
 */
export class CallStreams {
	readonly #shown: CallsShown;
	readonly #limits: HoldLimits;
	readonly #clock: () => number;
	readonly #random: () => number;
	readonly #setTimer: SetTimer;
	readonly #streams = new Set<Stream>();
	readonly #perClient = new Map<string, number>();
	#cancelTick: (() => void) | null = null;
	/** The calls' version the open streams were last sent (CallsShown.version). */
	#sentVersion = -1;

	constructor(shown: CallsShown, limits: HoldLimits, options: StreamOptions = {}) {
		this.#shown = shown;
		this.#limits = limits;
		this.#clock = options.clock ?? Date.now;
		this.#random = options.random ?? Math.random;
		this.#setTimer = options.setTimer ?? realTimer;
	}

	/** Streams open now. */
	get size(): number {
		return this.#streams.size;
	}

	/** A stream of the calls `filter` selects, for at most `seconds`. */
	open(filter: CallFilter, hold: HoldableRequest, seconds: number): ReadableStream<Uint8Array> {
		const held =
			this.#streams.size < this.#limits.maxHeld &&
			(this.#perClient.get(hold.clientKey) ?? 0) < this.#limits.maxPerClient;
		let stream: Stream | undefined;
		return new ReadableStream<Uint8Array>({
			start: (controller) => {
				stream = this.#stream(filter, hold.clientKey, controller);
				this.#push(stream, new Map());
				if (!held || hold.signal.aborted) return stream.close();
				this.#hold(stream, hold, seconds);
			},
			cancel: () => stream?.end(),
		});
	}

	#stream(filter: CallFilter, clientKey: string, controller: ReadableStreamDefaultController<Uint8Array>) {
		let open = true;
		const stream: Stream = {
			filter,
			clientKey,
			last: null,
			send: (calls, event) => {
				if (!open || calls === stream.last) return;
				stream.last = calls;
				try {
					controller.enqueue(event);
				} catch {
					// The client went away between two ticks: its abort ends the hold.
					open = false;
				}
			},
			close: () => {
				if (!open) return;
				open = false;
				try {
					controller.close();
				} catch {
					// Already cancelled by the client.
				}
			},
			end: () => stream.close(),
		};
		return stream;
	}

	#hold(stream: Stream, hold: HoldableRequest, seconds: number): void {
		const limitMs = seconds * 1000 * (1 - SPREAD * this.#random());
		hold.keepOpen(seconds + KEEP_OPEN_MARGIN_SECONDS);
		this.#streams.add(stream);
		this.#perClient.set(stream.clientKey, (this.#perClient.get(stream.clientKey) ?? 0) + 1);
		const end = () => {
			cancelLimit();
			hold.signal.removeEventListener("abort", end);
			this.#release(stream);
			stream.close();
		};
		stream.end = end;
		const cancelLimit = this.#setTimer(end, limitMs);
		hold.signal.addEventListener("abort", end);
		this.#tickSoon();
	}

	#release(stream: Stream): void {
		if (!this.#streams.delete(stream)) return;
		const count = (this.#perClient.get(stream.clientKey) ?? 1) - 1;
		if (count === 0) this.#perClient.delete(stream.clientKey);
		else this.#perClient.set(stream.clientKey, count);
	}

	/** Sends the stream its filter's calls when they differ from what it was last sent; each filter's event made once. */
	#push(stream: Stream, byFilter: Map<string, { calls: string; event: Uint8Array }>): void {
		const key = filterKey(stream.filter);
		let made = byFilter.get(key);
		if (made === undefined) {
			const calls = JSON.stringify(this.#shown.current(stream.filter));
			const event = encoder.encode(`data: {"now":${this.#clock()},"calls":${calls}}\n\n`);
			made = { calls, event };
			byFilter.set(key, made);
		}
		stream.send(made.calls, made.event);
	}

	/** Sends every stream its calls if they were read anew since the last tick, then ticks again. */
	#sendChanged(): void {
		this.#cancelTick = null;
		const version = this.#shown.version();
		if (version !== this.#sentVersion) {
			this.#sentVersion = version;
			const byFilter = new Map<string, { calls: string; event: Uint8Array }>();
			for (const stream of this.#streams) this.#push(stream, byFilter);
		}
		if (this.#streams.size > 0) this.#tickSoon();
	}

	#tickSoon(): void {
		if (this.#cancelTick !== null) return;
		this.#cancelTick = this.#setTimer(() => {
			if (this.#streams.size === 0) {
				this.#cancelTick = null;
				return;
			}
			const settling = this.#shown.settle();
			if (settling === null) this.#sendChanged();
			// settle() never rejects: a database away is shown as no calls.
			else void settling.then(() => this.#sendChanged());
		}, CHECK_INTERVAL_MS);
	}
}
