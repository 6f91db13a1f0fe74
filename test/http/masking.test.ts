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
	// Whatever the script, decoration or Unicode form: NFKC first, digits of every script count.
	["\uff0b\uff11 \uff15\uff15\uff15 \uff18\uff16\uff17 \uff15\uff13\uff10\uff19", "+155*****309"],
	["+\u0661 \u0665\u0665\u0665 \u0668\u0666\u0667 \u0665\u0663\u0660\u0669", "+155*****309"],
	["+1 555\u200b867\u00ad5309", "+155*****309"],
	["secret.person\uff20example.org", "s***@e***.org"],
	["secret.person\ufe6bexample.org", "s***@e***.org"],
	["secret.person@example.org (Secret Person)", "s***@e***.org"],
	["(Secret (Very) Person) secret.person@example.org", "s***@e***.org"],
	["Secret Person <secret.person@example.org>", "s***@e***.org"],
	['"Person, Secret" <Secret.Person@Example.ORG>', "s***@e***.org"],
	["secret.person@example.org, Secret Person", "s***@e***.org"],
	["fax@1.555.867.5309", "f***@1***"],
	["\uff21\uff23\uff2d\uff25 \uff14\uff12", "ACME 42"],
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
	for (const raw of [
		"555 123 4567",
		"1234567",
		"12345678",
		"John.Doe",
		"Example.co",
		"office.example",
		"8675",
		"\uff18\uff16\uff17",
		"\u0668\u0666\u0667",
		"secret",
		"Secret",
		"person",
		"Person",
		"example.org",
		"\uff20",
	]) {
		expect(text).not.toContain(raw);
	}
});

test("the single answer is masked the same way", async () => {
	const fax = (await (await server.request("/api/faxes/fax_mask0")).json()) as { from: string };
	expect(fax.from).toBe("+155*****567");
});

test("from= finds a sender written in any script or decoration by its plain spelling", async () => {
	const slugsFor = async (from: string) => {
		const response = await server.request(`/api/faxes?limit=100&from=${encodeURIComponent(from)}`);
		expect(response.status).toBe(200);
		return ((await response.json()) as { slug: string }[]).map((fax) => fax.slug);
	};
	const number = ["fax_mask15", "fax_mask16", "fax_mask17"];
	expect(await slugsFor("+15558675309")).toEqual(number);
	expect(await slugsFor("\uff0b\uff11\uff15\uff15\uff15\uff18\uff16\uff17\uff15\uff13\uff10\uff19")).toEqual(
		number,
	);
	const email = [
		"fax_mask18",
		"fax_mask19",
		"fax_mask20",
		"fax_mask21",
		"fax_mask22",
		"fax_mask23",
		"fax_mask24",
	];
	expect(await slugsFor("secret.person@example.org")).toEqual(email);
	expect(await slugsFor("Secret Person <SECRET.PERSON\uff20example.org>")).toEqual(email);
	expect(await slugsFor("acme42")).toEqual(["fax_mask7", "fax_mask8", "fax_mask26"]);
});
