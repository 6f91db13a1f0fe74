import { setTimeout as delay } from "node:timers/promises";
import type { Fax } from "../fax/index.ts";
import { type Fetch, type PollOutcome, pollList } from "./poll-list.ts";
import { backoffMs } from "./retry-delay.ts";
import { planWait, type WaitOptions } from "./wait-options.ts";

/** How waiting ended. Expected failures are results, never exceptions. */
export type WaitResult =
	| { kind: "found"; fax: Fax; polls: number; elapsedMs: number }
	/** The service answered, but no matching fax came within the time limit. */
	| { kind: "timed-out"; polls: number; elapsedMs: number }
	/** A 4xx other than 429, with the server's message: asking again cannot help. */
	| { kind: "client-error"; status: number; message: string; url: string; polls: number; elapsedMs: number }
	/** The last attempt before the time limit failed: no answer, or a 5xx (then `status`). */
	| { kind: "unreachable"; status: number | null; message: string; polls: number; elapsedMs: number }
	/** The last answer was a 429 and none before it brought a list: the client never got past the rate limit. */
	| { kind: "rate-limited"; polls: number; elapsedMs: number };

/** Reported at the start and after every poll that did not end the wait. */
export interface WaitProgress {
	outcome: "started" | "no-match" | "rate-limited" | "failed";
	waitingFor: string;
	elapsedMs: number;
	timeoutMs: number;
	polls: number;
	/** HTTP status of the last answer; null before the first one or when there was none. */
	lastStatus: number | null;
	rateLimitRemaining: number | null;
	/** Faxes in the last list that matched the query, before the page count was checked. */
	listed: number | null;
	/** Why the last attempt failed. */
	error: string | null;
	nextPollInMs: number;
}

export interface WaitDependencies {
	/** Aborting ends the wait promptly: the promise rejects with the signal's reason. */
	signal?: AbortSignal;
	onProgress?: (progress: WaitProgress) => void;
	fetch?: Fetch;
	/** Milliseconds since the epoch: where `since` starts. */
	clock?: () => number;
	/**
	 * Monotonic milliseconds (performance.now): the time limit and the elapsed
	 * time, so a wall-clock step neither ends the wait early nor prolongs it.
	 */
	monotonic?: () => number;
	sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The longest a request may stay unanswered, beyond the time the server may hold it, before it counts as failed. */
const MAX_REQUEST_MS = 30_000;
/** The longest `wait` the API takes, in seconds. */
const MAX_WAIT_SECONDS = 30;
/**
 * An answer that took this share of its `wait` or more was held by the server
 * (which answers up to a tenth early, at random): the next poll may go at
 * once. A quicker answer with nothing new comes from a server that does not
 * hold (an older version, one past its bounds, one stopping): the interval
 * applies, as without `wait`.
 */
const HELD_SHARE = 0.85;
/**
 * The last poll falls on the time limit itself; it still gets this long to be
 * answered, so a hanging service can overrun the limit by this much at most.
 */
const LAST_REQUEST_GRACE_MS = 5000;

/** The list is newest first and the server filtered by sender: the last match is the oldest. */
function oldestMatch(faxes: Fax[], pages: number | undefined): Fax | undefined {
	return faxes.findLast((fax) => pages === undefined || fax.page_count === pages);
}

/** The `wait` to send with `remainingMs` left: the last poll falls on the time limit; 0 sends none. */
function waitSeconds(remainingMs: number): number {
	return Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.floor(remainingMs / 1000)));
}

/** Whether the next poll may go at once: the server held this one, or it brought a list not seen before. */
function isFresh(
	outcome: PollOutcome,
	sentEtag: string | null,
	heldMs: number,
	waitedSeconds: number,
): boolean {
	if (waitedSeconds > 0 && heldMs >= waitedSeconds * 1000 * HELD_SHARE) return true;
	return outcome.kind === "listed" && outcome.etag !== null && outcome.etag !== sentEtag;
}

function delayAfter(outcome: PollOutcome, failures: number, intervalMs: number, fresh: boolean): number {
	if (outcome.kind === "rate-limited") return outcome.retryAfterMs ?? intervalMs;
	if (outcome.kind === "failed") return Math.max(backoffMs(failures, intervalMs), outcome.retryAfterMs ?? 0);
	return fresh ? 0 : intervalMs;
}

function progressFields(outcome: Exclude<PollOutcome, { kind: "refused" }>, listed: number | null) {
	if (outcome.kind === "listed" || outcome.kind === "unchanged") {
		const { status, rateLimitRemaining } = outcome;
		return { outcome: "no-match", lastStatus: status, rateLimitRemaining, listed, error: null } as const;
	}
	if (outcome.kind === "rate-limited") {
		const { status, rateLimitRemaining } = outcome;
		return {
			outcome: "rate-limited",
			lastStatus: status,
			rateLimitRemaining,
			listed: null,
			error: null,
		} as const;
	}
	const { status, message } = outcome;
	return {
		outcome: "failed",
		lastStatus: status,
		rateLimitRemaining: null,
		listed: null,
		error: message,
	} as const;
}

/** The clocks, the sleep and the fetch a wait uses: the real ones unless a test gives its own. */
function withDefaults(dependencies: WaitDependencies) {
	return {
		clock: dependencies.clock ?? Date.now,
		monotonic: dependencies.monotonic ?? (() => performance.now()),
		sleepFor: dependencies.sleep ?? sleep,
		fetchList: dependencies.fetch ?? fetch,
	};
}

/** The progress a wait reports before its first poll. */
const NOTHING_YET = {
	outcome: "started",
	elapsedMs: 0,
	lastStatus: null,
	rateLimitRemaining: null,
	listed: null,
	error: null,
	nextPollInMs: 0,
} as const;

/** A request may take its wait, and then what is left of the time limit, within bounds. */
function requestTimeoutMs(wait: number, leftMs: number): number {
	return wait * 1000 + Math.min(MAX_REQUEST_MS, Math.max(leftMs, LAST_REQUEST_GRACE_MS));
}

/** The result of a wait whose time limit has come, by its last poll's outcome. */
function endAtLimit(
	outcome: Exclude<PollOutcome, { kind: "refused" }>,
	everListed: boolean,
	polls: number,
	elapsedMs: number,
): WaitResult {
	if (outcome.kind === "rate-limited" && !everListed) return { kind: "rate-limited", polls, elapsedMs };
	if (outcome.kind !== "failed") return { kind: "timed-out", polls, elapsedMs };
	const { status, message } = outcome;
	return { kind: "unreachable", status, message, polls, elapsedMs };
}

/** Waits `ms` milliseconds; an abort ends the wait at once, rejecting with the signal's reason. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	try {
		await delay(ms, undefined, { signal });
	} catch (error) {
		// node:timers/promises rejects with its own AbortError; callers expect the reason they aborted with.
		signal?.throwIfAborted();
		throw error;
	}
}

/**
 * Waits for a test fax as docs/API.md advises: asks for the list with a fixed
 * `since`, `wait` (up to 30 s, never past the time limit) and the last ETag as
 * If-None-Match, so the server answers once the list changes; against a server
 * that answers at once, every interval. Honours Retry-After on 429, retries
 * network errors and 5xx with back-off inside the time limit, and stops at once
 * on any other 4xx. The last poll falls on the time limit, so a fax that appears
 * just before it is still found. Invalid options throw a WaitOptionError, an
 * abort the signal's reason.
 */
export async function waitForFax(
	options: WaitOptions,
	dependencies: WaitDependencies = {},
): Promise<WaitResult> {
	const { signal, onProgress } = dependencies;
	const { clock, monotonic, sleepFor, fetchList } = withDefaults(dependencies);
	signal?.throwIfAborted();
	const plan = planWait(options, clock());
	const startedAt = monotonic();
	const deadline = startedAt + plan.timeoutMs;
	let [polls, failures, lastPoll, everListed] = [0, 0, false, false];
	let [etag, listed]: [string | null, number | null] = [null, null];
	const elapsed = () => monotonic() - startedAt;
	const progress = { waitingFor: plan.waitingFor, timeoutMs: plan.timeoutMs };
	onProgress?.({ ...progress, ...NOTHING_YET, polls });
	for (;;) {
		const sentAt = monotonic();
		const wait = waitSeconds(deadline - sentAt);
		const sentEtag = etag;
		const outcome = await pollList({
			url: wait > 0 ? `${plan.url}&wait=${wait}` : plan.url,
			userAgent: plan.userAgent,
			fetch: fetchList,
			timeoutMs: requestTimeoutMs(wait, deadline - sentAt),
			signal,
			etag,
		});
		const heldMs = monotonic() - sentAt;
		polls++;
		if (outcome.kind === "refused") {
			const { status, message } = outcome;
			return { kind: "client-error", status, message, url: plan.url, polls, elapsedMs: elapsed() };
		}
		if (outcome.kind === "listed") {
			const fax = oldestMatch(outcome.faxes, plan.pages);
			if (fax !== undefined) return { kind: "found", fax, polls, elapsedMs: elapsed() };
			etag = outcome.etag;
			listed = outcome.faxes.length;
		}
		failures = outcome.kind === "failed" ? failures + 1 : 0;
		if (outcome.kind === "listed" || outcome.kind === "unchanged") everListed = true;

		const remaining = deadline - monotonic();
		if (lastPoll || remaining <= 0) return endAtLimit(outcome, everListed, polls, elapsed());
		const delay = delayAfter(outcome, failures, plan.intervalMs, isFresh(outcome, sentEtag, heldMs, wait));
		lastPoll = delay >= remaining;
		const nextPollInMs = Math.min(delay, remaining);
		onProgress?.({
			...progressFields(outcome, listed),
			...progress,
			elapsedMs: elapsed(),
			polls,
			nextPollInMs,
		});
		await sleepFor(nextPollInMs, signal);
		signal?.throwIfAborted();
	}
}
