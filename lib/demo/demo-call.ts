// A demo instance shows a call being received, as a tester's call is shown: a
// real call's session log (fixtures/hylafax/clean: two pages with error
// correction, 21 s) fed line by line through a CallFeed at the pace HylaFAX
// wrote it, as `fax follow-call` feeds a real one, over and over. Its fax is
// never listed: a few seconds after the call ended its entry is removed, and
// the next call begins a while later.
import type { FaxStore } from "../db/index.ts";
import { CallFeed } from "../live-calls/index.ts";
import type { Logger } from "../log/index.ts";
import { errorMessage, realTimer, type SetTimer } from "../util/index.ts";

const DEMO_LOG = new URL("../../fixtures/hylafax/clean/receiver.log", import.meta.url);
// The ended call stays long enough to be read, and the list is empty for a
// while before the next call, as between real ones.
const ENDED_SHOWN_MS = 3000;
const BETWEEN_CALLS_MS = 5000;
// Nine digits as HylaFAX writes them, far above what a real receiver reaches,
// and one more for each replay: each replay is a call of its own to the pages.
const FIRST_COMMID = 900_000_000;
const DAY_MS = 86_400_000;
// faxgetty's stamp at the head of each line: `Nov 26 10:28:30.93: [14119]: …`.
const STAMP = /^\w{3} +\d+ (\d\d):(\d\d):(\d\d)\.(\d\d)(?=: )/;
const SESSION_BEGIN = /(\]: SESSION BEGIN )\d+/;

/** One line of a session log and when HylaFAX wrote it: milliseconds after the log's first line. */
export interface TimedLine {
	text: string;
	afterMs: number;
}

function dayMsOf(line: string): number | null {
	const match = STAMP.exec(line);
	if (match === null) return null;
	const [hours = 0, minutes = 0, seconds = 0, hundredths = 0] = match.slice(1).map(Number);
	return ((hours * 60 + minutes) * 60 + seconds) * 1000 + hundredths * 10;
}

/** A session log's lines, each timed by its stamp; a line without one keeps the time of the line before. */
export function timedLines(log: string): TimedLine[] {
	const lines: TimedLine[] = [];
	let first: number | null = null;
	let afterMs = 0;
	for (const text of log.split("\n")) {
		if (text === "") continue;
		const at = dayMsOf(text);
		if (at !== null) {
			first ??= at;
			// A call that went past midnight: its stamps start the day again.
			afterMs = (at - first + DAY_MS) % DAY_MS;
		}
		lines.push({ text, afterMs });
	}
	return lines;
}

/** The stamp of `ms` (UTC), as faxgetty writes it: `Nov 26 10:28:30.93`. */
function stampOf(ms: number): string {
	const date = new Date(ms);
	const [, day, month] = date.toUTCString().split(" ");
	return `${month} ${day} ${date.toISOString().slice(11, 22)}`;
}

/**
 * The line as the replay begun at `startMs` writes it: stamped with the time it
 * comes now, so the call's name (commid and first stamp) is new on every start
 * and its steps read as today's; the session its own commid.
 */
function replayedLine(line: TimedLine, startMs: number, commid: number): string {
	const stamped = line.text.replace(STAMP, () => stampOf(startMs + line.afterMs));
	return stamped.replace(SESSION_BEGIN, `$1${commid}`);
}

/** The waits of replays: each ends after its time, or at once, all together, when stopped. */
export class Pauses {
	readonly #setTimer: SetTimer;
	readonly #waking = new Set<() => void>();
	#stopped = false;

	constructor(setTimer: SetTimer = realTimer) {
		this.#setTimer = setTimer;
	}

	get stopped(): boolean {
		return this.#stopped;
	}

	/** True after `ms`; false once stopped, at once. */
	wait(ms: number): Promise<boolean> {
		if (this.#stopped) return Promise.resolve(false);
		return new Promise((resolve) => {
			const wake = () => {
				cancel();
				resolve(false);
			};
			const cancel = this.#setTimer(() => {
				this.#waking.delete(wake);
				resolve(true);
			}, ms);
			this.#waking.add(wake);
		});
	}

	stop(): void {
		this.#stopped = true;
		for (const wake of this.#waking) wake();
		this.#waking.clear();
	}
}

export interface ReplayOptions {
	/** The session's number in the replayed log, so the call's key is its own. */
	commid: number;
	/** How many times faster than HylaFAX wrote the log. */
	pace: number;
	/** Milliseconds since the epoch: the replayed lines' stamps. */
	clock: () => number;
}

/**
 * Feeds one call's log to `feed`, each line after its gap in the log (divided
 * by the pace), and writes the call as ended: at its last line or when
 * `pauses` is stopped. Once it resolves the feed writes nothing more.
 */
export async function replayCall(
	feed: CallFeed,
	lines: TimedLine[],
	pauses: Pauses,
	options: ReplayOptions,
): Promise<void> {
	const startMs = options.clock();
	let at = 0;
	try {
		for (const line of lines) {
			if (line.afterMs > at && !(await pauses.wait((line.afterMs - at) / options.pace))) return;
			at = line.afterMs;
			feed.line(replayedLine(line, startMs, options.commid));
		}
	} finally {
		// Also cancels the feed's pending write, which would bring a removed entry back.
		await feed.end();
	}
}

export interface DemoCallOptions {
	logger: Logger;
	clock?: () => number;
	setTimer?: SetTimer;
}

export interface DemoCall {
	/** Cuts the call short and removes its entry; resolves once nothing of the replay runs. */
	stop(): Promise<void>;
}

/** Starts replaying the demo call until stopped; without its log (an image without fixtures/), none. */
export async function startDemoCall(store: FaxStore, options: DemoCallOptions): Promise<DemoCall> {
	let lines: TimedLine[];
	try {
		lines = timedLines(await Bun.file(DEMO_LOG).text());
	} catch (error) {
		options.logger.warn({ reason: errorMessage(error) }, "no demo call: its session log cannot be read");
		return { stop: () => Promise.resolve() };
	}
	const pauses = new Pauses(options.setTimer);
	const running = replayOver(store, lines, pauses, options);
	return {
		stop() {
			pauses.stop();
			return running;
		},
	};
}

/**
 * Replays the call at the log's own pace until `pauses` is stopped. A failure
 * (the database away) costs a replay, never the server: it is logged, and the
 * next replay, a few seconds on, tries again.
 */
async function replayOver(store: FaxStore, lines: TimedLine[], pauses: Pauses, options: DemoCallOptions) {
	const clock = options.clock ?? Date.now;
	// Entries whose removal failed: removed before the next call may begin.
	const shown = new Set<string>();
	for (let n = 0; !pauses.stopped; n++) {
		try {
			await removeAll(store, shown);
			const failed = (reason: string) =>
				options.logger.warn(
					{ reason },
					"the demo call's progress could not be written: its feed tries again",
				);
			const feed = new CallFeed(store, { clock, setTimer: options.setTimer, failed });
			try {
				await replayCall(feed, lines, pauses, { commid: FIRST_COMMID + n, pace: 1, clock });
			} finally {
				if (feed.key !== null) shown.add(feed.key);
			}
			await pauses.wait(ENDED_SHOWN_MS);
			await removeAll(store, shown);
		} catch (error) {
			options.logger.warn({ reason: errorMessage(error) }, "the demo call failed: the next one tries again");
		}
		await pauses.wait(BETWEEN_CALLS_MS);
	}
}

async function removeAll(store: FaxStore, keys: Set<string>): Promise<void> {
	for (const key of keys) {
		await store.removeCall(key);
		keys.delete(key);
	}
}
