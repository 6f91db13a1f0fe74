import { plural } from "../util/index.ts";
import type { WaitProgress } from "./wait-for-fax.ts";

/** Seconds for people: a decimal only where short test intervals need one. */
export function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	if (seconds >= 10) return `${Math.round(seconds)} s`;
	// Rounded first, so 0.04 s shows as "0 s" rather than "0.0 s".
	const tenths = Math.round(seconds * 10) / 10;
	return Number.isInteger(tenths) ? `${tenths} s` : `${tenths.toFixed(1)} s`;
}

function lastAnswer(progress: WaitProgress): string {
	if (progress.lastStatus !== null) return `HTTP ${progress.lastStatus}`;
	return progress.outcome === "failed" ? "no answer" : "no answer yet";
}

/**
 * The live status line of a terminal. `elapsedMs` and `nextPollInMs` are given
 * apart from the progress so the line can tick between polls.
 */
export function statusLine(progress: WaitProgress, elapsedMs: number, nextPollInMs: number): string {
	const parts = [
		`waiting ${formatSeconds(elapsedMs)} / ${formatSeconds(progress.timeoutMs)}`,
		plural(progress.polls, "poll"),
		lastAnswer(progress),
	];
	if (progress.rateLimitRemaining !== null) parts.push(`${progress.rateLimitRemaining} requests left`);
	if (progress.polls > 0) parts.push(`next poll in ${formatSeconds(nextPollInMs)}`);
	parts.push(progress.waitingFor);
	return parts.join(" | ");
}

function pollSummary(progress: WaitProgress): string {
	if (progress.outcome === "failed") return `failed (${progress.error ?? lastAnswer(progress)})`;
	if (progress.outcome === "rate-limited") return `HTTP ${progress.lastStatus}, rate limited`;
	const listed = progress.listed ?? 0;
	return `HTTP ${progress.lastStatus}, ${listed === 0 ? "no fax yet" : `${plural(listed, "fax", "faxes")} listed, none matching`}`;
}

/** One line of a log: what happened at the start or at one poll, and what comes next. */
export function progressLine(progress: WaitProgress): string {
	if (progress.outcome === "started") {
		return `waiting up to ${formatSeconds(progress.timeoutMs)} for ${progress.waitingFor}`;
	}
	const left = progress.rateLimitRemaining === null ? "" : `; ${progress.rateLimitRemaining} requests left`;
	const next = progress.outcome === "no-match" ? "next poll" : "retrying";
	return `poll ${progress.polls}: ${pollSummary(progress)}${left}; ${next} in ${formatSeconds(progress.nextPollInMs)}`;
}
