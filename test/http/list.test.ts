import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { FaxListSchema } from "../../lib/fax/index.ts";
import { ago, agoIn, faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const DAY = 86_400;

let server: TestServer;

async function slugsOf(query: string): Promise<string[]> {
	const response = await server.request(`/api/faxes${query}`);
	expect(response.status).toBe(200);
	const body = (await response.json()) as { slug: string }[];
	return body.map((fax) => fax.slug);
}

beforeAll(async () => {
	server = await startTestServer({
		clock: fixedClock,
		faxes: [
			faxRecord({ slug: "fax_number1", sender: "+1 555 123 4567", received_at: ago(10) }),
			faxRecord({ slug: "fax_station1", sender: "ACME 42", received_at: ago(20) }),
			faxRecord({
				slug: "fax_email1",
				source: "email",
				sender: "John.Doe@Example.co.uk",
				received_at: ago(30),
			}),
			faxRecord({ slug: "fax_unknown1", sender: null, received_at: ago(40) }),
			faxRecord({ slug: "fax_blank1", sender: "   ", received_at: ago(41) }),
			faxRecord({
				slug: "fax_broken1",
				source: "email",
				sender: "scan@office.example",
				received_at: ago(50),
				page_count: null,
				file_size: null,
			}),
			faxRecord({ slug: "fax_tieA", sender: "ACME 7", received_at: ago(100) }),
			faxRecord({ slug: "fax_tieB", sender: "ACME 7", received_at: ago(100) }),
			faxRecord({ slug: "fax_number2", sender: "15551234567", received_at: ago(200) }),
			faxRecord({ slug: "fax_frac", sender: "FRAC 1", received_at: `${ago(600).slice(0, -1)}.900Z` }),
			faxRecord({ slug: "fax_removed1", sender: "+1 555 123 4567", received_at: ago(5), removed: true }),
			faxRecord({ slug: "fax_dayIn", sender: "EDGE 1", received_at: ago(DAY - 1) }),
			faxRecord({ slug: "fax_dayOut", sender: "EDGE 1", received_at: ago(DAY) }),
			faxRecord({ slug: "fax_old", sender: "OLD 1", received_at: ago(20 * DAY) }),
			faxRecord({ slug: "fax_expired", sender: "OLD 1", received_at: ago(30 * DAY + 1) }),
			faxRecord({ slug: "fax_retained", sender: "OLD 1", received_at: ago(30 * DAY) }),
		],
	});
});

afterAll(() => server.stop());

describe("GET /api/faxes", () => {
	test("lists the last 24 hours newest first, ties in a stable order, removed faxes never", async () => {
		expect(await slugsOf("")).toEqual([
			"fax_number1",
			"fax_station1",
			"fax_email1",
			"fax_unknown1",
			"fax_blank1",
			"fax_broken1",
			"fax_tieB",
			"fax_tieA",
			"fax_number2",
			"fax_frac",
			"fax_dayIn",
		]);
	});

	test("answers a bare array of fax objects in the exact public shape", async () => {
		const response = await server.request("/api/faxes?limit=2");
		expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
		const body = await response.json();
		expect(Value.Check(FaxListSchema, body)).toBe(true);
		expect(body).toEqual([
			{
				slug: "fax_number1",
				source: "phone",
				from: "+155*****567",
				received_at: ago(10),
				page_count: 1,
				file_size: 1000,
				pdf_url: "https://cdn.test.example/faxes/fax_number1.pdf",
				thumbnail_url: "https://cdn.test.example/faxes/fax_number1-thumb.jpg",
				view_url: "https://site.test.example/faxtest/fax_number1",
			},
			{
				slug: "fax_station1",
				source: "phone",
				from: "ACME 42",
				received_at: ago(20),
				page_count: 1,
				file_size: 1000,
				pdf_url: "https://cdn.test.example/faxes/fax_station1.pdf",
				thumbnail_url: "https://cdn.test.example/faxes/fax_station1-thumb.jpg",
				view_url: "https://site.test.example/faxtest/fax_station1",
			},
		]);
	});

	test("shows a not processable fax with null file fields", async () => {
		const body = (await (await server.request("/api/faxes?from=scan@office.example")).json()) as unknown[];
		expect(body).toEqual([
			{
				slug: "fax_broken1",
				source: "email",
				from: "s***@o***.example",
				received_at: ago(50),
				page_count: null,
				file_size: null,
				pdf_url: null,
				thumbnail_url: null,
				view_url: "https://site.test.example/faxtest/fax_broken1",
			},
		]);
	});

	test("limit: default 20, 1 and 100 accepted", async () => {
		expect(await slugsOf("?limit=1")).toEqual(["fax_number1"]);
		expect(await slugsOf("?limit=3")).toEqual(["fax_number1", "fax_station1", "fax_email1"]);
		expect((await slugsOf(`?limit=100&since=${ago(60 * DAY)}`)).length).toBe(14);
	});

	test("since: strictly later, compared to the second", async () => {
		expect(await slugsOf(`?since=${ago(11)}`)).toEqual(["fax_number1"]);
		expect(await slugsOf(`?since=${ago(10)}`)).toEqual([]);
		expect(await slugsOf(`?since=${ago(10).slice(0, -1)}.999Z`)).toEqual([]);
		expect(await slugsOf(`?since=${ago(11).slice(0, -1)}.999Z`)).toEqual(["fax_number1"]);
		// a fax received 599.1 s ago counts as received 600 s ago
		expect(await slugsOf(`?since=${ago(600)}&from=FRAC%201`)).toEqual([]);
		expect(await slugsOf(`?since=${ago(601)}&from=FRAC%201`)).toEqual(["fax_frac"]);
	});

	test("since: offsets, with and without a colon, and the default window", async () => {
		expect(await slugsOf(`?since=${encodeURIComponent(agoIn(11, "+02:00"))}`)).toEqual(["fax_number1"]);
		expect(await slugsOf(`?since=${encodeURIComponent(agoIn(11, "+0200"))}`)).toEqual(["fax_number1"]);
		expect(await slugsOf(`?since=${agoIn(11, "-05:00")}`)).toEqual(["fax_number1"]);
		expect(await slugsOf("?from=EDGE%201")).toEqual(["fax_dayIn"]);
		expect(await slugsOf(`?from=EDGE%201&since=${ago(2 * DAY)}`)).toEqual(["fax_dayIn", "fax_dayOut"]);
	});

	test("never lists a fax past 30 days, whatever since says", async () => {
		expect(await slugsOf(`?from=OLD%201&since=${ago(60 * DAY)}`)).toEqual(["fax_old", "fax_retained"]);
	});

	test("from: a number with or without +, spaces and case do not count", async () => {
		for (const from of ["%2B1%20555%20123%204567", "15551234567", "%2B15551234567", "1%20555%201234567"]) {
			expect(await slugsOf(`?from=${from}`)).toEqual(["fax_number1", "fax_number2"]);
		}
	});

	test("from: station IDs with or without spaces, emails in any case", async () => {
		expect(await slugsOf("?from=ACME%2042")).toEqual(["fax_station1"]);
		expect(await slugsOf("?from=acme42")).toEqual(["fax_station1"]);
		expect(await slugsOf("?from=JOHN.DOE@EXAMPLE.CO.UK")).toEqual(["fax_email1"]);
	});

	test("from: Unknown in any case selects faxes without a sender ID", async () => {
		expect(await slugsOf("?from=Unknown")).toEqual(["fax_unknown1", "fax_blank1"]);
		expect(await slugsOf("?from=UNKNOWN")).toEqual(["fax_unknown1", "fax_blank1"]);
	});

	test("from: Unknown is read by the match key, like a sender: white space and invisible characters do not count", async () => {
		for (const spelling of [
			"Unknown%20",
			"%20unknown%09",
			"Un%20known",
			"%E2%80%8BUnknown",
			"Unk%C2%ADnown",
			"%2BUnknown",
		]) {
			expect([spelling, await slugsOf(`?from=${spelling}`)]).toEqual([
				spelling,
				["fax_unknown1", "fax_blank1"],
			]);
		}
		expect(await slugsOf("?from=Unknown1")).toEqual([]);
	});

	test("from: no prefix match, no wildcard, the masked form never matches", async () => {
		expect(await slugsOf("?from=1555")).toEqual([]);
		expect(await slugsOf("?from=ACME")).toEqual([]);
		expect(await slugsOf("?from=%2B155*****567")).toEqual([]);
		expect(await slugsOf("?from=%25")).toEqual([]);
		expect(await slugsOf("?from=*")).toEqual([]);
	});

	test("empty values are absent and unknown parameters are ignored", async () => {
		expect(await slugsOf("?limit=&since=&from=&page=2&sort=asc")).toEqual(await slugsOf(""));
		expect(await slugsOf("?from=ACME%2042&limit=")).toEqual(["fax_station1"]);
	});

	test("an empty result is []", async () => {
		const response = await server.request("/api/faxes?from=nobody@nowhere.example");
		expect(response.status).toBe(200);
		expect(await response.text()).toBe("[]");
	});
});
