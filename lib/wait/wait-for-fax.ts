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
	| { kind: "unreachable"; status: number | null; message: string; polls: number; elapsedMs: number };

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

/** The longest a request may stay unanswered before it counts as failed. */
const MAX_REQUEST_MS = 30_000;
/**
 * The last poll falls on the time limit itself; it still gets this long to be
 * answered, so a hanging service can overrun the limit by this much at most.
 */
const LAST_REQUEST_GRACE_MS = 5000;

/** The list is newest first and the server filtered by sender: the last match is the oldest. */
function oldestMatch(faxes: Fax[], pages: number | undefined): Fax | undefined {
	return faxes.findLast((fax) => pages === undefined || fax.page_count === pages);
}

function delayAfter(outcome: PollOutcome, failures: number, intervalMs: number): number {
	if (outcome.kind === "rate-limited") return outcome.retryAfterMs ?? intervalMs;
	if (outcome.kind === "failed") return Math.max(backoffMs(failures, intervalMs), outcome.retryAfterMs ?? 0);
	return intervalMs;
}

function progressFields(outcome: Exclude<PollOutcome, { kind: "refused" }>) {
	if (outcome.kind === "listed") {
		const { status, rateLimitRemaining, faxes } = outcome;
		return {
			outcome: "no-match",
			lastStatus: status,
			rateLimitRemaining,
			listed: faxes.length,
			error: null,
		} as const;
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

/**
 * Waits for a test fax as docs/API.md advises: polls the list with a fixed
 * `since` every interval, honours Retry-After on 429, retries network errors and
 * 5xx with back-off inside the time limit, and stops at once on any other 4xx.
 * The last poll falls on the time limit, so a fax that appears just before it is
 * still found. Invalid options throw a WaitOptionError, an abort the signal's reason.
 */
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

export async function waitForFax(
	options: WaitOptions,
	dependencies: WaitDependencies = {},
): Promise<WaitResult> {
	const { signal, onProgress } = dependencies;
	const clock = dependencies.clock ?? Date.now;
	const monotonic = dependencies.monotonic ?? (() => performance.now());
	const sleepFor = dependencies.sleep ?? sleep;
	const fetchList = dependencies.fetch ?? fetch;
	signal?.throwIfAborted();
	const plan = planWait(options, clock());
	const startedAt = monotonic();
	const deadline = startedAt + plan.timeoutMs;
	let polls = 0;
	let failures = 0;
	let lastPoll = false;
	const elapsed = () => monotonic() - startedAt;

	onProgress?.({
		outcome: "started",
		waitingFor: plan.waitingFor,
		elapsedMs: 0,
		timeoutMs: plan.timeoutMs,
		polls,
		lastStatus: null,
		rateLimitRemaining: null,
		listed: null,
		error: null,
		nextPollInMs: 0,
	});
	for (;;) {
		const outcome = await pollList({
			url: plan.url,
			userAgent: plan.userAgent,
			fetch: fetchList,
			timeoutMs: Math.min(MAX_REQUEST_MS, Math.max(deadline - monotonic(), LAST_REQUEST_GRACE_MS)),
			signal,
		});
		polls++;
		if (outcome.kind === "refused") {
			const { status, message } = outcome;
			return { kind: "client-error", status, message, url: plan.url, polls, elapsedMs: elapsed() };
		}
		if (outcome.kind === "listed") {
			const fax = oldestMatch(outcome.faxes, plan.pages);
			if (fax !== undefined) return { kind: "found", fax, polls, elapsedMs: elapsed() };
		}
		failures = outcome.kind === "failed" ? failures + 1 : 0;

		const remaining = deadline - monotonic();
		if (lastPoll || remaining <= 0) {
			if (outcome.kind !== "failed") return { kind: "timed-out", polls, elapsedMs: elapsed() };
			const { status, message } = outcome;
			return { kind: "unreachable", status, message, polls, elapsedMs: elapsed() };
		}
		const delay = delayAfter(outcome, failures, plan.intervalMs);
		lastPoll = delay >= remaining;
		const nextPollInMs = Math.min(delay, remaining);
		onProgress?.({
			...progressFields(outcome),
			waitingFor: plan.waitingFor,
			elapsedMs: elapsed(),
			timeoutMs: plan.timeoutMs,
			polls,
			nextPollInMs,
		});
		await sleepFor(nextPollInMs, signal);
		signal?.throwIfAborted();
	}
}
