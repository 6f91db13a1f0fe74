import { afterAll, beforeAll, expect, test } from "bun:test";
import { ago, faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// DECISIONS.md "Sender (from) masking", and the edges of each rule.
const CASES: [string | null, string | null][] = [
	["+1 555 123 4567", "+155*****567"],
	["+49 30 12345678", "+4930*****678"],
	["123456", "*****456"],
	["FAX 1234567", "FAX*****567"],
	["+1-555-123-4567", "+1-55*****567"],
	["  +1 (555) 123-4567  ", "+1(55*****567"],
	["12345", "12345"],
	["ACME 42", "ACME 42"],
	["  ACME 42  ", "ACME 42"],
	["John.Doe@Example.co.uk", "j***@e***.uk"],
	["ADMIN@LOCALHOST", "a***@l***"],
	["scanner@office.example.com", "s***@o***.com"],
	[null, null],
	["", null],
	["   ", null],
];

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({
		clock: fixedClock,
		faxes: CASES.map(([sender], i) => faxRecord({ slug: `fax_mask${i}`, sender, received_at: ago(100 + i) })),
	});
});
afterAll(() => server.stop());

test("from is masked exactly as DECISIONS.md shows; the raw sender never appears", async () => {
	const response = await server.request("/api/faxes?limit=100");
	const text = await response.text();
	const list = JSON.parse(text) as { slug: string; from: string | null }[];
	expect(list.map((fax) => [fax.slug, fax.from])).toEqual(
		CASES.map(([, masked], i) => [`fax_mask${i}`, masked]),
	);
	for (const raw of ["555 123 4567", "1234567", "12345678", "John.Doe", "Example.co", "office.example"]) {
		expect(text).not.toContain(raw);
	}
});

test("the single answer is masked the same way", async () => {
	const fax = (await (await server.request("/api/faxes/fax_mask0")).json()) as { from: string };
	expect(fax.from).toBe("+155*****567");
});
