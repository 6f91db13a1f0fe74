import { describe, expect, test } from "bun:test";
import { WaitOptionError, type WaitOptions, type WaitProgress, waitForFax } from "../../lib/wait/index.ts";
import { listUrl, sinceParameter } from "../../lib/wait/list-url.ts";
import { backoffMs, retryAfterMs } from "../../lib/wait/retry-delay.ts";
import { planWait } from "../../lib/wait/wait-options.ts";
import { fakeTime, json, listedFax, scriptedFetch, T0 } from "./fakes.ts";

const BASE = "http://api.test";
const NONE = () => json([], 200, { "x-ratelimit-remaining": "59" });
const connectionRefused = () => Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" });

describe("since and the list URL", () => {
	test("a Date is sent as the second before its own, so its own second is not lost", () => {
		expect(sinceParameter(new Date("2026-11-21T10:00:05.700Z"))).toBe("2026-11-21T10:00:04Z");
		expect(sinceParameter(new Date("2026-11-21T10:00:05.000Z"))).toBe("2026-11-21T10:00:04Z");
	});

	test("a string is sent as written", () => {
		expect(sinceParameter("2026-11-21T11:00:05.5+01:00")).toBe("2026-11-21T11:00:05.5+01:00");
	});

	test("+ and spaces in since and from are percent-encoded; limit is 100", () => {
		expect(listUrl(`${BASE}/`, { since: "2026-11-21T12:00:00+02:00", from: "+1 555 123 4567" })).toBe(
			`${BASE}/api/faxes?since=2026-11-21T12%3A00%3A00%2B02%3A00&limit=100&from=%2B1+555+123+4567`,
		);
	});

	test("a path prefix of the base URL is kept", () => {
		expect(listUrl("https://example.com/testfax//", { since: "2026-11-21T10:00:00Z" })).toBe(
			"https://example.com/testfax/api/faxes?since=2026-11-21T10%3A00%3A00Z&limit=100",
		);
	});
});

describe("retry delays", () => {
	test("back-off starts at the interval and doubles up to a minute", () => {
		expect([1, 2, 3, 4, 5].map((failures) => backoffMs(failures, 15_000))).toEqual([
			15_000, 30_000, 60_000, 60_000, 60_000,
		]);
	});

	test("an interval longer than a minute is itself the cap", () => {
		expect([1, 2].map((failures) => backoffMs(failures, 90_000))).toEqual([90_000, 90_000]);
	});

	test("Retry-After is read in whole seconds, at least one", () => {
		expect([retryAfterMs("7"), retryAfterMs("0"), retryAfterMs(null), retryAfterMs("soon")]).toEqual([
			7000,
			1000,
			null,
			null,
		]);
	});
});

/** The progress of a wait for an unknown sender's 1-page fax: started, then a list, a 429 and a 503. */
function progressAfterEachPoll(): WaitProgress[] {
	const common = {
		waitingFor: "a fax without sender ID with 1 page received after 2026-11-21T10:00:04Z",
		timeoutMs: 600_000,
	};
	return [
		{
			...common,
			outcome: "started",
			elapsedMs: 0,
			polls: 0,
			lastStatus: null,
			rateLimitRemaining: null,
			listed: null,
			error: null,
			nextPollInMs: 0,
		},
		{
			...common,
			outcome: "no-match",
			elapsedMs: 0,
			polls: 1,
			lastStatus: 200,
			rateLimitRemaining: 59,
			listed: 0,
			error: null,
			nextPollInMs: 5000,
		},
		{
			...common,
			outcome: "rate-limited",
			elapsedMs: 5000,
			polls: 2,
			lastStatus: 429,
			rateLimitRemaining: 0,
			listed: null,
			error: null,
			nextPollInMs: 7000,
		},
		{
			...common,
			outcome: "failed",
			elapsedMs: 12_000,
			polls: 3,
			lastStatus: 503,
			rateLimitRemaining: null,
			listed: null,
			error: "Service Unavailable.",
			nextPollInMs: 5000,
		},
	];
}

describe("waitForFax", () => {
	test("polls with a fixed since, its own User-Agent, and returns the oldest match", async () => {
		const time = fakeTime();
		const oldest = listedFax("fax_old", "2026-11-21T10:01:10Z");
		const faxes = [
			listedFax("fax_new", "2026-11-21T10:01:30Z"),
			listedFax("fax_mid", "2026-11-21T10:01:20Z"),
			oldest,
		];
		const { fetch, requests } = scriptedFetch([NONE(), NONE(), json(faxes)]);
		const result = await waitForFax({ baseUrl: BASE, from: "+1 555 123 4567" }, { ...time, fetch });

		expect(result).toEqual({ kind: "found", fax: oldest, polls: 3, elapsedMs: 30_000 });
		expect(time.state.sleeps).toEqual([15_000, 15_000]);
		const url = `${BASE}/api/faxes?since=2026-11-21T10%3A00%3A04Z&limit=100&from=%2B1+555+123+4567&wait=30`;
		expect(requests.map((request) => request.url)).toEqual([url, url, url]);
		expect(requests[0]?.headers.get("user-agent")).toBe("testfax-wait/1.0.0");
		expect(requests[0]?.headers.get("accept")).toBe("application/json");
	});

	test("with pages, the oldest fax of that many pages is chosen", async () => {
		const faxes = [
			listedFax("fax_three_new", "2026-11-21T10:01:30Z", 3),
			listedFax("fax_three_old", "2026-11-21T10:01:20Z", 3),
			listedFax("fax_one", "2026-11-21T10:01:10Z", 1),
			listedFax("fax_failed", "2026-11-21T10:01:05Z", null),
		];
		const { fetch } = scriptedFetch([json(faxes)]);
		const result = await waitForFax({ baseUrl: BASE, pages: 3 }, { ...fakeTime(), fetch });
		expect(result.kind === "found" && result.fax.slug).toBe("fax_three_old");
	});

	test("a list without a fax of that many pages is no match", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([json([listedFax("fax_one", "2026-11-21T10:01:10Z", 1)])]);
		const result = await waitForFax(
			{ baseUrl: BASE, pages: 2, timeoutSeconds: 30 },
			{ ...time, fetch, onProgress: () => {} },
		);
		expect(result).toEqual({ kind: "timed-out", polls: 3, elapsedMs: 30_000 });
	});

	test("the last poll falls on the time limit", async () => {
		const time = fakeTime();
		const { fetch, requests } = scriptedFetch([NONE()]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 40 }, { ...time, fetch });
		expect(result).toEqual({ kind: "timed-out", polls: 4, elapsedMs: 40_000 });
		expect(time.state.sleeps).toEqual([15_000, 15_000, 10_000]);
		// Never held past the time limit; the poll on it asks without wait.
		expect(requests.map((request) => new URL(request.url).searchParams.get("wait"))).toEqual([
			"30",
			"25",
			"10",
			null,
		]);
	});

	test("a held answer is followed by the next poll at once, with the last ETag as If-None-Match", async () => {
		const time = fakeTime();
		const fax = listedFax("fax_late", "2026-11-21T10:01:30Z");
		const answers = [
			// The server answers at once: the list is not empty, though nothing in it matches.
			{
				heldMs: 5,
				answer: json([listedFax("fax_other", "2026-11-21T10:00:30Z", 9)], 200, { etag: 'W/"a"' }),
			},
			// Held to its time limit (less the server's spread): nothing new.
			{ heldMs: 28_000, answer: new Response(null, { status: 304, headers: { etag: 'W/"a"' } }) },
			{ heldMs: 1200, answer: json([fax, listedFax("fax_other", "2026-11-21T10:00:30Z", 9)]) },
		];
		const sent: { url: string; ifNoneMatch: string | null }[] = [];
		const fetch = async (url: string, init: RequestInit) => {
			const next = answers[sent.length];
			sent.push({ url, ifNoneMatch: new Headers(init.headers).get("if-none-match") });
			time.state.now += next?.heldMs ?? 0;
			return next?.answer ?? NONE();
		};
		const result = await waitForFax({ baseUrl: BASE, pages: 1 }, { ...time, fetch });
		expect(result).toEqual({ kind: "found", fax, polls: 3, elapsedMs: 29_205 });
		expect(time.state.sleeps).toEqual([0, 0]);
		expect(sent.map(({ url, ifNoneMatch }) => [new URL(url).searchParams.get("wait"), ifNoneMatch])).toEqual([
			["30", null],
			["30", 'W/"a"'],
			["30", 'W/"a"'],
		]);
	});

	test("a server that answers at once with nothing new (it does not hold) is asked every interval", async () => {
		const time = fakeTime();
		const { fetch, requests } = scriptedFetch([
			json([], 200, { etag: 'W/"e"' }),
			new Response(null, { status: 304, headers: { etag: 'W/"e"' } }),
		]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 60 }, { ...time, fetch });
		expect(result).toEqual({ kind: "timed-out", polls: 6, elapsedMs: 60_000 });
		// Only the first list is news: every 304 after it came at once, so the interval applies.
		expect(time.state.sleeps).toEqual([0, 15_000, 15_000, 15_000, 15_000]);
		expect(requests.slice(1).map((request) => request.headers.get("if-none-match"))).toEqual(
			Array(5).fill('W/"e"'),
		);
	});

	test("reports progress at the start and after each poll", async () => {
		const time = fakeTime();
		const events: WaitProgress[] = [];
		const { fetch } = scriptedFetch([
			NONE(),
			json({ message: "Too Many Attempts." }, 429, { "retry-after": "7", "x-ratelimit-remaining": "0" }),
			json({ message: "Service Unavailable." }, 503),
			json([listedFax("fax_found", "2026-11-21T10:01:10Z")]),
		]);
		await waitForFax(
			{ baseUrl: BASE, from: "Unknown", pages: 1, intervalSeconds: 5 },
			{ ...time, fetch, onProgress: (event) => events.push(event) },
		);
		expect(events).toEqual(progressAfterEachPoll());
	});

	test("a 429 waits Retry-After, but not past the time limit; only 429s end as rate limited", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([json({ message: "Too Many Attempts." }, 429, { "retry-after": "60" })]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 5 }, { ...time, fetch });
		expect(result).toEqual({ kind: "rate-limited", polls: 2, elapsedMs: 5000 });
		expect(time.state.sleeps).toEqual([5000]);
	});

	test("a 429 after a list ends as timed out: the client got past the limit once", async () => {
		const time = fakeTime();
		const tooMany = json({ message: "Too Many Attempts." }, 429, { "retry-after": "60" });
		const { fetch } = scriptedFetch([NONE(), tooMany]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 20 }, { ...time, fetch });
		expect(result).toEqual({ kind: "timed-out", polls: 3, elapsedMs: 20_000 });
	});

	test("a wall clock stepped an hour ahead or back neither ends the wait early nor prolongs it", async () => {
		for (const step of [3_600_000, -3_600_000]) {
			const time = fakeTime();
			let wall = T0;
			const { fetch } = scriptedFetch([
				() => {
					wall += step;
					return NONE();
				},
			]);
			const result = await waitForFax(
				{ baseUrl: BASE, timeoutSeconds: 45 },
				{ ...time, clock: () => wall, fetch },
			);
			expect(result).toEqual({ kind: "timed-out", polls: 4, elapsedMs: 45_000 });
			expect(time.state.sleeps).toEqual([15_000, 15_000, 15_000]);
		}
	});

	test("a 429 without Retry-After waits one interval", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([json({ message: "Too Many Attempts." }, 429), NONE()]);
		await waitForFax({ baseUrl: BASE, timeoutSeconds: 20 }, { ...time, fetch });
		expect(time.state.sleeps).toEqual([15_000, 5000]);
	});

	test("network errors back off within the time limit, then the result is unreachable", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([connectionRefused]);
		const result = await waitForFax({ baseUrl: BASE }, { ...time, fetch });
		expect(result).toEqual({
			kind: "unreachable",
			status: null,
			message: "Unable to connect (ECONNREFUSED)",
			polls: 13,
			elapsedMs: 600_000,
		});
		expect(time.state.sleeps).toEqual([15_000, 30_000, ...Array(9).fill(60_000), 15_000]);
	});

	test("an answer resets the back-off", async () => {
		const time = fakeTime();
		const failure = () => json({ message: "Server Error." }, 500);
		const { fetch } = scriptedFetch([failure, failure, NONE, failure, NONE]);
		await waitForFax({ baseUrl: BASE, timeoutSeconds: 75 }, { ...time, fetch });
		expect(time.state.sleeps).toEqual([15_000, 30_000, 15_000, 15_000]);
	});

	test("a 5xx with Retry-After waits at least that long", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([
			json({ message: "Service Unavailable." }, 503, { "retry-after": "40" }),
			NONE(),
		]);
		await waitForFax({ baseUrl: BASE, timeoutSeconds: 50 }, { ...time, fetch });
		expect(time.state.sleeps).toEqual([40_000, 10_000]);
	});

	test("a failure on the last poll is unreachable, with the last status", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([NONE(), json({ message: "Service Unavailable." }, 503)]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 20 }, { ...time, fetch });
		expect(result).toEqual({
			kind: "unreachable",
			status: 503,
			message: "Service Unavailable.",
			polls: 3,
			elapsedMs: 20_000,
		});
	});

	test("failures followed by answers end as timed out", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([connectionRefused, NONE]);
		const result = await waitForFax({ baseUrl: BASE, timeoutSeconds: 20 }, { ...time, fetch });
		expect(result).toEqual({ kind: "timed-out", polls: 3, elapsedMs: 20_000 });
	});

	test("an answer that is not a list of faxes is retried like a 5xx", async () => {
		const time = fakeTime();
		const { fetch } = scriptedFetch([new Response("<html>hello</html>"), NONE()]);
		const events: WaitProgress[] = [];
		await waitForFax(
			{ baseUrl: BASE, timeoutSeconds: 15 },
			{ ...time, fetch, onProgress: (event) => events.push(event) },
		);
		expect(events[1]?.error).toBe("the answer is not a list of faxes");
	});

	test("a 422 stops at once with the server's message", async () => {
		const time = fakeTime();
		const message = "The from field must not be longer than 255 characters.";
		const { fetch, requests } = scriptedFetch([json({ message, errors: { from: [message] } }, 422)]);
		const result = await waitForFax({ baseUrl: BASE, from: "x".repeat(256) }, { ...time, fetch });
		expect(result).toEqual({
			kind: "client-error",
			status: 422,
			message,
			url: `${BASE}/api/faxes?since=2026-11-21T10%3A00%3A04Z&limit=100&from=${"x".repeat(256)}`,
			polls: 1,
			elapsedMs: 0,
		});
		expect(requests.length).toBe(1);
		expect(time.state.sleeps).toEqual([]);
	});

	test("a 403 with a plain-text body and a 404 with an empty message give readable messages", async () => {
		const forbidden = scriptedFetch([new Response("Forbidden: set a User-Agent.\n", { status: 403 })]);
		const notFound = scriptedFetch([json({ message: "" }, 404)]);
		const results = await Promise.all([
			waitForFax({ baseUrl: BASE }, { ...fakeTime(), fetch: forbidden.fetch }),
			waitForFax({ baseUrl: BASE }, { ...fakeTime(), fetch: notFound.fetch }),
		]);
		expect(results.map((result) => result.kind === "client-error" && result.message)).toEqual([
			"Forbidden: set a User-Agent.",
			"HTTP 404",
		]);
	});

	test("an abort during the wait between polls ends it at once", async () => {
		const controller = new AbortController();
		const { fetch } = scriptedFetch([NONE()]);
		const started = performance.now();
		const waiting = waitForFax({ baseUrl: BASE, intervalSeconds: 60 }, { fetch, signal: controller.signal });
		setTimeout(() => controller.abort(new Error("stop")), 50);
		await expect(waiting).rejects.toThrow("stop");
		// Not the 60 s interval: the bound leaves a loaded machine its delays.
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	test("an abort during a request ends it at once", async () => {
		const controller = new AbortController();
		const hanging = (_url: string, init: RequestInit) =>
			new Promise<Response>((_resolve, reject) => {
				init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
			});
		const waiting = waitForFax({ baseUrl: BASE }, { fetch: hanging, signal: controller.signal });
		setTimeout(() => controller.abort(new Error("stop")), 50);
		await expect(waiting).rejects.toThrow("stop");
	});

	test("an aborted signal makes no request", async () => {
		const { fetch, requests } = scriptedFetch([NONE()]);
		await expect(waitForFax({ baseUrl: BASE }, { fetch, signal: AbortSignal.abort() })).rejects.toThrow();
		expect(requests.length).toBe(0);
	});

	test("invalid options are the caller's bug and throw, naming the option", async () => {
		const { fetch, requests } = scriptedFetch([NONE()]);
		const refused: [WaitOptions, keyof WaitOptions][] = [
			[{ baseUrl: "api.test" }, "baseUrl"],
			[{ baseUrl: `${BASE}?x=1` }, "baseUrl"],
			[{ baseUrl: BASE, since: new Date(Number.NaN) }, "since"],
			[{ baseUrl: BASE, since: "2026-11-21T10:00:00" }, "since"],
			[{ baseUrl: BASE, from: "" }, "from"],
			[{ baseUrl: BASE, pages: 1.5 }, "pages"],
			[{ baseUrl: BASE, timeoutSeconds: 0 }, "timeoutSeconds"],
			[{ baseUrl: BASE, intervalSeconds: Number.NaN }, "intervalSeconds"],
			[{ baseUrl: BASE, userAgent: "a\nb" }, "userAgent"],
			[{ baseUrl: BASE, userAgent: "caf\u00e9" }, "userAgent"],
		];
		for (const [options, option] of refused) {
			const error = await waitForFax(options, { fetch }).catch((thrown: unknown) => thrown);
			expect(error).toBeInstanceOf(WaitOptionError);
			expect(error).toBeInstanceOf(RangeError);
			expect({ options, option: (error as WaitOptionError).option }).toEqual({ options, option });
		}
		expect(requests.length).toBe(0);
	});

	test("a refusal's message names the option, the rule and the value", () => {
		expect(() => planWait({ baseUrl: BASE, timeoutSeconds: 0 }, T0)).toThrow(
			"timeoutSeconds must be a number of seconds above 0 and at most 86400, got 0",
		);
		expect(() => planWait({ baseUrl: "api.test" }, T0)).toThrow(
			'baseUrl must be an absolute http(s) URL, got "api.test"',
		);
	});
});
