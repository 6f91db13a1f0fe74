import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const LIMIT = "The limit field must be an integer between 1 and 100.";
const SINCE = "The since field must be a date-time with a time zone offset, like 2026-11-21T10:00:00Z.";
const FROM_LONG = "The from field must not be longer than 255 characters.";
const single = (name: string) => `The ${name} field must be a single value.`;

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
});
afterAll(() => server.stop());

async function expect422(query: string, errors: Record<string, string[]>) {
	const response = await server.request(`/api/faxes?${query}`);
	expect(response.status).toBe(422);
	expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
	expect(response.headers.get("cache-control")).toBe("no-store, private");
	expect(response.headers.get("x-ratelimit-remaining")).not.toBeNull();
	const first = Object.values(errors)[0]?.[0];
	expect(await response.json()).toEqual({ message: first, errors });
}

describe("422 validation errors", () => {
	test("limit must be an integer from 1 to 100", async () => {
		for (const value of ["0", "101", "-1", "1.5", "abc", "1e2", "%201", "true", "0x10"]) {
			await expect422(`limit=${value}`, { limit: [LIMIT] });
		}
	});

	test("since must be a date-time with an offset", async () => {
		for (const value of [
			"2026-11-21",
			"2026-11-21T10:00:00",
			"yesterday",
			"2026-02-30T10:00:00Z",
			"2026-11-21T25:00:00Z",
			"2026-11-21T10:60:00Z",
			"2026-13-01T10:00:00Z",
			"2026-11-21 10:00:00Z",
			"1700000000",
			"2026-11-21T10:00:00+24:00",
		]) {
			await expect422(`since=${encodeURIComponent(value)}`, { since: [SINCE] });
		}
	});

	test("an unencoded + in the offset is a 422", async () => {
		await expect422("since=2026-11-21T10:00:00+02:00", { since: [SINCE] });
	});

	test("a leap day is a date", async () => {
		expect((await server.request("/api/faxes?since=2028-02-29T10:00:00Z")).status).toBe(200);
		await expect422("since=2027-02-29T10:00:00Z", { since: [SINCE] });
	});

	test("from is at most 255 characters", async () => {
		expect((await server.request(`/api/faxes?from=${"a".repeat(255)}`)).status).toBe(200);
		await expect422(`from=${"a".repeat(256)}`, { from: [FROM_LONG] });
		// Characters as a reader counts them, not UTF-16 units: an emoji or an accented letter is one.
		for (const last of ["\u{1f600}", "\u{1f44d}\u{1f3fd}", "e\u0301"]) {
			const from = encodeURIComponent(`${"a".repeat(254)}${last}`);
			expect((await server.request(`/api/faxes?from=${from}`)).status).toBe(200);
			await expect422(`from=${from}b`, { from: [FROM_LONG] });
		}
		expect(
			(await server.request(`/api/faxes?from=${encodeURIComponent("e\u0301".repeat(255))}`)).status,
		).toBe(200);
	});

	test("repeated or bracketed keys are invalid for that parameter", async () => {
		await expect422("from[]=x", { from: [single("from")] });
		await expect422("from%5B%5D=x", { from: [single("from")] });
		await expect422("from=a&from=b", { from: [single("from")] });
		await expect422("limit[]=1", { limit: [single("limit")] });
		await expect422("since[x]=2026-11-21T10:00:00Z", { since: [single("since")] });
		await expect422("from[]=", { from: [single("from")] });
	});

	test("one entry per invalid parameter; message is the first in the order limit, since, from", async () => {
		await expect422(`from=${"b".repeat(300)}&since=today&limit=0`, {
			limit: [LIMIT],
			since: [SINCE],
			from: [FROM_LONG],
		});
		await expect422("from[]=a&since=today", { since: [SINCE], from: [single("from")] });
	});
});
