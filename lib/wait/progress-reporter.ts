import { formatUtcSeconds } from "../fax/index.ts";
import { progressLine, statusLine } from "./progress-text.ts";
import type { WaitProgress } from "./wait-for-fax.ts";

/** Shows the progress of a wait; `finish` leaves the output ready for a final message. */
export interface ProgressReporter {
	report(progress: WaitProgress): void;
	finish(): void;
}

/** The part of a terminal stream the live line needs (process.stderr fits). */
export interface StatusTerminal {
	write(text: string): unknown;
	columns?: number;
}

const TICK_MS = 1000;
const CLEAR_LINE = "\r\x1b[K";

export const silentReporter: ProgressReporter = { report() {}, finish() {} };

/** Timestamped lines, one per event: for logs and pipes. */
export function lineReporter(writeLine: (text: string) => void, clock: () => number): ProgressReporter {
	return {
		report(progress) {
			writeLine(`${formatUtcSeconds(Math.floor(clock() / 1000))} fax wait: ${progressLine(progress)}`);
		},
		finish() {},
	};
}

function fitTo(line: string, columns: number | undefined): string {
	// A line wider than the terminal wraps, and "\r" would then rewrite only its last part.
	if (columns === undefined || columns < 2) return line;
	const chars = [...line];
	return chars.length < columns ? line : `${chars.slice(0, columns - 2).join("")}…`;
}

/** One status line rewritten in place, ticking every second between polls. */
export function liveLineReporter(terminal: StatusTerminal, clock: () => number): ProgressReporter {
	let last: { progress: WaitProgress; at: number } | undefined;
	let ticker: ReturnType<typeof setInterval> | undefined;
	const render = () => {
		if (last === undefined) return;
		const since = clock() - last.at;
		const line = statusLine(
			last.progress,
			last.progress.elapsedMs + since,
			Math.max(0, last.progress.nextPollInMs - since),
		);
		terminal.write(`${CLEAR_LINE}${fitTo(line, terminal.columns)}`);
	};
	return {
		report(progress) {
			last = { progress, at: clock() };
			render();
			ticker ??= setInterval(render, TICK_MS);
		},
		finish() {
			clearInterval(ticker);
			if (last !== undefined) terminal.write(CLEAR_LINE);
		},
	};
}
