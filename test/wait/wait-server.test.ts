import { describe, expect, test } from "bun:test";
import { formatUtcSeconds } from "../../lib/fax/index.ts";
import { type WaitProgress, waitForFax } from "../../lib/wait/index.ts";
import { heldCount, useTestServers } from "../../testkit/server.ts";
import { SteppedTime } from "../../testkit/stepped-time.ts";
import { faxRecord, importWhileRunning, servedFax } from "./server-fixtures.ts";

const SENDER = "+1 555 123 4567";
const FAST = { intervalSeconds: 0.2, timeoutSeconds: 10 };

const start = useTestServers();

/** An ISO 8601 time of `ms` with a +02:00 offset, as a user east of UTC would write it. */
function plusTwoHours(ms: number): string {
	return `${formatUtcSeconds(Math.floor(ms / 1000) + 7200).slice(0, 19)}+02:00`;
}

describe("waitForFax against the real server", () => {
	test("finds a fax imported while it waits, and ignores an older one from before since", async () => {
		const now = Date.now();
		// The server's time is stepped: its first answer, held for 9 s, comes when the test moves it on.
		const time = new SteppedTime(now);
		const running = await start({ time, faxes: [faxRecord("fax_older", SENDER, now - 60_000)] });
		const events: WaitProgress[] = [];
		let importing: Promise<void> | undefined;
		const released = heldCount(running, 1).then(() => time.advance(9000));
		const result = await waitForFax(
			{ baseUrl: running.baseUrl, from: SENDER, ...FAST },
			{
				onProgress: (event) => {
					events.push(event);
					if (event.outcome === "no-match") {
						importing ??= importWhileRunning(running, [faxRecord("fax_arrived", SENDER, Date.now())]);
					}
				},
			},
		);
		await Promise.all([importing, released]);

		expect(result.kind === "found" && result.fax).toEqual(await servedFax(running, "fax_arrived"));
		expect(result.polls).toBeGreaterThanOrEqual(2);
		expect(events.filter((event) => event.outcome === "no-match").map((event) => event.listed)).toEqual(
			Array(result.polls - 1).fill(0),
		);
	});

	test("a fax received in the second of a Date since counts; a string since means a later second", async () => {
		const second = Math.floor(Date.now() / 1000) * 1000;
		const running = await start({ faxes: [faxRecord("fax_sameSecond", SENDER, second)] });
		const asDate = await waitForFax({ baseUrl: running.baseUrl, since: new Date(second + 500), ...FAST });
		const asString = await waitForFax({
			baseUrl: running.baseUrl,
			since: formatUtcSeconds(second / 1000),
			intervalSeconds: 0.2,
			timeoutSeconds: 0.3,
		});
		expect(asDate.kind === "found" && asDate.fax.slug).toBe("fax_sameSecond");
		expect(asString.kind).toBe("timed-out");
	});

	test("an older fax before since is never returned", async () => {
		const running = await start({ faxes: [faxRecord("fax_older", null, Date.now() - 5000)] });
		const result = await waitForFax({ baseUrl: running.baseUrl, intervalSeconds: 0.2, timeoutSeconds: 0.5 });
		expect(result.kind).toBe("timed-out");
	});

	test("pages picks the right one of two faxes without sender ID", async () => {
		const now = Date.now();
		const running = await start({
			faxes: [
				faxRecord("fax_onePage", null, now - 20_000, 1),
				faxRecord("fax_threePages", null, now - 10_000, 3),
			],
		});
		const since = new Date(now - 60_000);
		const three = await waitForFax({ baseUrl: running.baseUrl, since, from: "Unknown", pages: 3, ...FAST });
		const one = await waitForFax({ baseUrl: running.baseUrl, since, from: "Unknown", pages: 1, ...FAST });
		expect(three.kind === "found" && three.fax).toEqual(await servedFax(running, "fax_threePages"));
		expect(one.kind === "found" && one.fax).toEqual(await servedFax(running, "fax_onePage"));
	});

	test("from with + and spaces, and since with a +02:00 offset, reach the server intact", async () => {
		const now = Date.now();
		const running = await start({
			faxes: [
				faxRecord("fax_otherSender", "+1 555 123 4568", now - 20_000),
				faxRecord("fax_thisSender", "+15551234567", now - 10_000),
			],
		});
		const result = await waitForFax({
			baseUrl: running.baseUrl,
			since: plusTwoHours(now - 60_000),
			from: SENDER,
			...FAST,
		});
		expect(result).toEqual({
			kind: "found",
			fax: await servedFax(running, "fax_thisSender"),
			polls: 1,
			elapsedMs: expect.any(Number),
		});
	});

	test("the oldest of several matches after since is returned", async () => {
		const now = Date.now();
		const running = await start({
			faxes: [
				faxRecord("fax_beforeSince", SENDER, now - 90_000),
				faxRecord("fax_first", SENDER, now - 30_000),
				faxRecord("fax_second", SENDER, now - 20_000),
				faxRecord("fax_third", SENDER, now - 10_000),
			],
		});
		const result = await waitForFax({
			baseUrl: running.baseUrl,
			since: new Date(now - 60_000),
			from: SENDER,
			...FAST,
		});
		expect(result.kind === "found" && result.fax).toEqual(await servedFax(running, "fax_first"));
	});

	test("a 429 is honoured: the next poll waits Retry-After seconds", async () => {
		// The client's sleeps step the server's time, and so its rate-limit window, instead of passing.
		const time = new SteppedTime();
		// A server that holds nothing answers at once, as one before `wait` did.
		const running = await start({
			time,
			env: { RATE_LIMIT_PER_MINUTE: "2", RATE_LIMIT_WINDOW_SECONDS: "2", WAIT_MAX_HELD_PER_CLIENT: "0" },
		});
		const polledAt: number[] = [];
		const statuses: number[] = [];
		const sleeps: number[] = [];
		let importing: Promise<void> | undefined;
		const result = await waitForFax(
			{ baseUrl: running.baseUrl, from: SENDER, ...FAST },
			{
				fetch: async (url, init) => {
					polledAt.push(time.monotonic());
					const response = await fetch(url, init);
					statuses.push(response.status);
					return response;
				},
				// The fax arrives while the client sits out the 429, so the poll right after it finds it.
				sleep: async (ms) => {
					sleeps.push(ms);
					if (statuses.at(-1) === 429) {
						importing ??= importWhileRunning(running, [faxRecord("fax_after429", SENDER, Date.now())]);
						await importing;
					}
					time.advance(ms);
				},
			},
		);

		// The first list is news, so the second poll goes at once; its 304 came at once, so the interval follows.
		expect(statuses).toEqual([200, 304, 429, 200]);
		expect(sleeps).toEqual([0, 200, 2000]);
		expect((polledAt[3] ?? 0) - (polledAt[2] ?? 0)).toBe(2000);
		expect(result.kind === "found" && result.fax.slug).toBe("fax_after429");
		expect(result.polls).toBe(4);
	});
});
