import type { ImportProgress } from "../import/index.ts";
import { formatSeconds, type StatusTerminal } from "../wait/index.ts";

const CLEAR_LINE = "\r\x1b[K";
// Redrawn at most this often: a terminal write per batch would slow the import down.
const REDRAW_MS = 100;

const count = (value: number) => value.toLocaleString("en-US");

/** Records per second and the time left of the phase under way, once it has run a moment. */
function pace(done: number, total: number, elapsedMs: number): string[] {
	if (done === 0 || elapsedMs < REDRAW_MS) return [];
	const perSecond = (done * 1000) / elapsedMs;
	return [`${count(Math.round(perSecond))}/s`, `${formatSeconds(((total - done) / perSecond) * 1000)} left`];
}

/** The live line: what is checked and written so far, and how fast the current phase goes. */
export function importStatusLine(progress: ImportProgress, phaseElapsedMs: number): string {
	const { total, validated, written } = progress;
	const writing = validated === total;
	return [
		`validated ${count(validated)}/${count(total)}`,
		`written ${count(written)}`,
		...(writing ? pace(written, total, phaseElapsedMs) : pace(validated, total, phaseElapsedMs)),
	].join(" | ");
}

/** Shows an import's progress on one terminal line, rewritten in place; `finish` clears it. */
export function liveImportProgress(terminal: StatusTerminal, clock: () => number) {
	let phase: "validating" | "writing" = "validating";
	let phaseStart = clock();
	let drawnAt = Number.NEGATIVE_INFINITY;
	let drawn = false;
	return {
		report(progress: ImportProgress): void {
			const now = clock();
			if (phase === "validating" && progress.validated === progress.total && progress.total > 0) {
				phase = "writing";
				phaseStart = now;
			}
			if (now - drawnAt < REDRAW_MS) return;
			drawnAt = now;
			drawn = true;
			const line = `import: ${importStatusLine(progress, now - phaseStart)}`;
			// A line wider than the terminal wraps, and "\r" would then rewrite only its
			// last part. A terminal of unknown width (0 under `script`) gets it whole.
			const width = terminal.columns ?? 0;
			terminal.write(`${CLEAR_LINE}${width < 2 || line.length < width ? line : line.slice(0, width - 1)}`);
		},
		finish(): void {
			if (drawn) terminal.write(CLEAR_LINE);
		},
	};
}
