import { describe, expect, jest, test } from "bun:test";
import type { WaitProgress } from "../../lib/wait/index.ts";
import { formatSeconds, lineReporter, liveLineReporter } from "../../lib/wait/index.ts";
import { progressLine, statusLine } from "../../lib/wait/progress-text.ts";
import { T0 } from "./fakes.ts";

const WAITING_FOR = 'a fax from "+1 555 123 4567" with 2 pages received after 2026-11-21T10:00:04Z';

function progress(fields: Partial<WaitProgress>): WaitProgress {
	return {
		outcome: "no-match",
		waitingFor: WAITING_FOR,
		elapsedMs: 45_000,
		timeoutMs: 600_000,
		polls: 4,
		lastStatus: 200,
		rateLimitRemaining: 56,
		listed: 0,
		error: null,
		nextPollInMs: 15_000,
		...fields,
	};
}

describe("progress text", () => {
	test("seconds get a decimal only below ten", () => {
		expect([0, 200, 1500, 9000, 12_345, 600_000].map(formatSeconds)).toEqual([
			"0 s",
			"0.2 s",
			"1.5 s",
			"9 s",
			"12 s",
			"600 s",
		]);
	});

	test("log lines say what each poll brought and what comes next", () => {
		expect(
			[
				progress({ outcome: "started", polls: 0, lastStatus: null, rateLimitRemaining: null, listed: null }),
				progress({}),
				progress({ listed: 1 }),
				progress({ listed: 3 }),
				progress({ outcome: "rate-limited", lastStatus: 429, rateLimitRemaining: 0, nextPollInMs: 7000 }),
				progress({
					outcome: "failed",
					lastStatus: 503,
					rateLimitRemaining: null,
					error: "Service Unavailable.",
					nextPollInMs: 30_000,
				}),
				progress({ outcome: "failed", lastStatus: null, rateLimitRemaining: null, error: "ECONNREFUSED" }),
			].map(progressLine),
		).toEqual([
			`waiting up to 600 s for ${WAITING_FOR}`,
			"poll 4: HTTP 200, no fax yet; 56 requests left; next poll in 15 s",
			"poll 4: HTTP 200, 1 fax listed, none matching; 56 requests left; next poll in 15 s",
			"poll 4: HTTP 200, 3 faxes listed, none matching; 56 requests left; next poll in 15 s",
			"poll 4: HTTP 429, rate limited; 0 requests left; retrying in 7 s",
			"poll 4: failed (Service Unavailable.); retrying in 30 s",
			"poll 4: failed (ECONNREFUSED); retrying in 15 s",
		]);
	});

	test("the status line shows elapsed time, polls, last answer, requests left and the target", () => {
		expect(statusLine(progress({}), 50_000, 10_000)).toBe(
			`waiting 50 s / 600 s | 4 polls | HTTP 200 | 56 requests left | next poll in 10 s | ${WAITING_FOR}`,
		);
		expect(
			statusLine(progress({ outcome: "failed", polls: 1, lastStatus: null, rateLimitRemaining: null }), 0, 0),
		).toBe(`waiting 0 s / 600 s | 1 poll | no answer | next poll in 0 s | ${WAITING_FOR}`);
	});
});

describe("reporters", () => {
	test("log lines carry a UTC timestamp", () => {
		const lines: string[] = [];
		lineReporter(
			(line) => lines.push(line),
			() => T0,
		).report(progress({}));
		expect(lines).toEqual([
			"2026-11-21T10:00:05Z fax wait: poll 4: HTTP 200, no fax yet; 56 requests left; next poll in 15 s",
		]);
	});

	test("the live line ticks every second between polls and is cleared at the end", () => {
		// Fake timers, so a busy machine can neither skip a tick nor squeeze in an extra one.
		jest.useFakeTimers();
		try {
			const written: string[] = [];
			let now = T0;
			const reporter = liveLineReporter({ write: (text) => written.push(text) }, () => now);
			reporter.report(progress({}));
			now += 999;
			jest.advanceTimersByTime(999);
			expect(written.length).toBe(1);
			now += 1;
			jest.advanceTimersByTime(1);
			reporter.finish();
			jest.advanceTimersByTime(5000);
			expect(written).toEqual([
				`\r\x1b[Kwaiting 45 s / 600 s | 4 polls | HTTP 200 | 56 requests left | next poll in 15 s | ${WAITING_FOR}`,
				`\r\x1b[Kwaiting 46 s / 600 s | 4 polls | HTTP 200 | 56 requests left | next poll in 14 s | ${WAITING_FOR}`,
				"\r\x1b[K",
			]);
		} finally {
			jest.useRealTimers();
		}
	});

	test("the live line is cut to the terminal's width so it never wraps", () => {
		const written: string[] = [];
		const reporter = liveLineReporter({ write: (text) => written.push(text), columns: 20 }, () => T0);
		reporter.report(progress({}));
		reporter.finish();
		expect(written).toEqual(["\r\x1b[Kwaiting 45 s / 600…", "\r\x1b[K"]);
	});
});
