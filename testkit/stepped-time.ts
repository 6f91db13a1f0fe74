import type { SetTimer } from "../lib/util/index.ts";

interface Due {
	at: number;
	run: () => void;
}

/**
 * A server's time that moves only when the test moves it: its wall clock,
 * its monotonic clock (rate-limit windows) and its timers (a held request's
 * time limit). A test of "held for about a second" or "a 5 s window" then
 * costs no real second, and its bounds are exact instead of padded for a
 * loaded machine. What the server learns from outside (another process's
 * commit, a closed connection) still comes in real time.
 *
 * testkit/stepped-clock.ts is the other kind: a child process's wall clock,
 * stepped under libfaketime while real time runs on.
 */
export class SteppedTime {
	#wall: number;
	#monotonic = 0;
	readonly #due = new Set<Due>();

	constructor(startMs: number = Date.now()) {
		this.#wall = startMs;
	}

	/** Milliseconds since the epoch, as the server's `clock`. */
	readonly now = (): number => this.#wall;

	/** Milliseconds since this time began, as the server's `monotonic`. */
	readonly monotonic = (): number => this.#monotonic;

	readonly setTimer: SetTimer = (run, ms) => {
		const due = { at: this.#monotonic + Math.max(0, ms), run };
		this.#due.add(due);
		return () => this.#due.delete(due);
	};

	/** Timers waiting to run. */
	get pending(): number {
		return this.#due.size;
	}

	/** What the server takes (ServerOptions): every clock and timer on this time. */
	get serverOptions() {
		return { clock: this.now, monotonic: this.monotonic, setTimer: this.setTimer };
	}

	/** Moves both clocks `ms` on, running each timer that falls due on the way, earliest first, at its own time. */
	advance(ms: number): void {
		const end = this.#monotonic + ms;
		for (let next = this.#nextDue(end); next !== undefined; next = this.#nextDue(end)) {
			this.#step(next.at - this.#monotonic);
			this.#due.delete(next);
			next.run();
		}
		this.#step(end - this.#monotonic);
	}

	#step(ms: number): void {
		this.#monotonic += ms;
		this.#wall += ms;
	}

	#nextDue(end: number): Due | undefined {
		let next: Due | undefined;
		for (const due of this.#due) if (due.at <= end && (next === undefined || due.at < next.at)) next = due;
		return next;
	}
}
