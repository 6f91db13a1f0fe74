/** The longest back-off after failures, unless the poll interval itself is longer. */
const MAX_BACKOFF_MS = 60_000;

/** A Retry-After of 0 (or a missing one after a 429) must still not make the client spin. */
const MIN_RETRY_MS = 1000;

/**
 * Delay before the next attempt after `failures` network errors or 5xx answers
 * in a row: the poll interval, doubled each time, capped at a minute (or at the
 * interval when that is longer). It never polls faster than asked, so a failing
 * service gets less traffic, not more.
 */
export function backoffMs(failures: number, intervalMs: number): number {
	return Math.min(intervalMs * 2 ** Math.max(0, failures - 1), Math.max(intervalMs, MAX_BACKOFF_MS));
}

/** Retry-After in delta-seconds (docs/API.md "Rate limit") as milliseconds, or null when absent or not a number. */
export function retryAfterMs(header: string | null): number | null {
	if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
	return Math.max(MIN_RETRY_MS, Number(header) * 1000);
}
