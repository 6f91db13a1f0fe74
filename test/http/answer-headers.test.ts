import { afterAll, beforeAll, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { faxRecord, fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// The exact header set of every kind of answer, so that work on how answers
// are built cannot add, drop or change a header unnoticed. The security
// headers are those of docs/decisions.md, "Security headers".

/** What a JSON or text answer may do in a browser: nothing. */
const NOTHING_POLICY: [string, string] = [
	"content-security-policy",
	"default-src 'none'; frame-ancestors 'none'",
];
const SECURITY: [string, string][] = [
	NOTHING_POLICY,
	["referrer-policy", "no-referrer"],
	["x-content-type-options", "nosniff"],
	["x-frame-options", "DENY"],
];
const EVERY_ANSWER: [string, string][] = [
	["access-control-allow-headers", "Accept"],
	["access-control-allow-methods", "GET, HEAD, OPTIONS"],
	["access-control-allow-origin", "*"],
	[
		"access-control-expose-headers",
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag",
	],
	["cache-control", "no-store, private"],
	...SECURITY,
];
// Every answer, a HEAD's too (RFC 9110 6.6.1), carries the time it was sent.
const HTTP_DATE =
	/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;
// A fresh id per answer: its form is checked, its value cannot be.
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const JSON_TYPE: [string, string] = ["content-type", "application/json; charset=utf-8"];
/** The ETag field of a 200, checked against the answer's body: `W/` and the first 22 characters of its SHA-256 in base64url. */
const ETAG = "derived from the body";
const represented: [string, string][] = [
	["etag", ETAG],
	["vary", "Accept-Encoding"],
];
const etagOf = (body: string) =>
	`W/"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
const counted = (remaining: number): [string, string][] => [
	["ratelimit", `"default";r=${remaining};t=60`],
	["ratelimit-policy", '"default";q=8;w=60'],
	["x-ratelimit-limit", "8"],
	["x-ratelimit-remaining", String(remaining)],
];

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({
		clock: fixedClock,
		env: { RATE_LIMIT_PER_MINUTE: "8" },
		faxes: [faxRecord({ slug: "fax_one" }), faxRecord({ slug: "fax_gone", removed: true })],
	});
});
afterAll(() => server.stop());

// In order: the count runs down from 8 across the counted answers.
const cases: [string, string, Record<string, string>, number, [string, string][]][] = [
	["GET", "/api/faxes", {}, 200, [["content-length", "305"], JSON_TYPE, ...represented, ...counted(7)]],
	[
		"GET",
		"/api/faxes/fax_one",
		{},
		200,
		[["content-length", "303"], JSON_TYPE, ...represented, ...counted(6)],
	],
	["GET", "/api/faxes/fax_none", {}, 404, [["content-length", "14"], JSON_TYPE, ...counted(5)]],
	["GET", "/api/faxes/fax_gone", {}, 410, [["content-length", "14"], JSON_TYPE, ...counted(4)]],
	["GET", "/api/faxes?limit=0", {}, 422, [["content-length", "144"], JSON_TYPE, ...counted(3)]],
	["HEAD", "/api/faxes", {}, 200, [["content-length", "305"], JSON_TYPE, ...represented, ...counted(2)]],
	[
		"DELETE",
		"/api/faxes",
		{},
		405,
		[["allow", "GET, HEAD"], ["content-length", "57"], JSON_TYPE, ...counted(1)],
	],
	[
		"OPTIONS",
		"/api/faxes",
		{},
		405,
		[["allow", "GET, HEAD"], ["content-length", "57"], JSON_TYPE, ...counted(0)],
	],
	[
		"OPTIONS",
		"/api/faxes",
		{ "access-control-request-method": "GET", "access-control-request-headers": "x-a" },
		204,
		[
			["access-control-allow-headers", "x-a"],
			["access-control-max-age", "86400"],
		],
	],
	["GET", "/nope", {}, 404, [["content-length", "14"], JSON_TYPE]],
	["HEAD", "/nope", {}, 404, [["content-length", "14"], JSON_TYPE]],
	[
		"GET",
		"/api/faxes",
		{ "user-agent": "Python-urllib/3.1" },
		403,
		[
			["content-length", "72"],
			["content-type", "text/plain; charset=utf-8"],
		],
	],
	["GET", "/cdn/faxes/fax_one.pdf", {}, 404, [["content-length", "14"], JSON_TYPE]],
	...(["GET", "HEAD"] as const).map(
		(method): [string, string, Record<string, string>, number, [string, string][]] => [
			method,
			"/api/faxes",
			{},
			429,
			[
				["content-length", "32"],
				JSON_TYPE,
				["retry-after", "60"],
				...counted(0),
				["x-ratelimit-reset", String(NOW_SECONDS + 60)],
			],
		],
	),
];

test("every kind of answer carries exactly its headers", async () => {
	const bodies = new Map<string, string>();
	for (const [method, path, headers, status, own] of cases) {
		const response = await server.request(path, { method, headers });
		const body = await response.clone().text();
		if (method === "GET") bodies.set(path, body);
		const expected = new Map(EVERY_ANSWER);
		for (const [name, value] of own)
			expected.set(name, value === ETAG ? etagOf(bodies.get(path) ?? "") : value);
		expect([method, path, response.status]).toEqual([method, path, status]);
		expect([method, path, response.headers.get("date")]).toEqual([
			method,
			path,
			expect.stringMatching(HTTP_DATE),
		]);
		expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
		const fixed = [...response.headers].filter(([name]) => name !== "date" && name !== "x-request-id");
		expect(fixed).toEqual([...expected].sort(([a], [b]) => a.localeCompare(b)));
		await response.arrayBuffer();
	}
});

/** The body's length, for answers whose length is not worth writing down. */
const LENGTH = "the body's length";
/** The policy of a fax page, checked against the page: exactly its own inline style and script. */
const PAGE_POLICY = "the page's own";
const PDF = "%PDF-1.4 a received file\n";
// A file's validators are its fax's received_at (faxRecord's: a minute ago) and its size, not its time on disk.
const WRITTEN = new Date("2026-01-02T03:04:05Z");
const RECEIVED_MS = (NOW_SECONDS - 60) * 1000;
const FILE_VALIDATORS: [string, string][] = [
	["etag", `"${RECEIVED_MS.toString(16)}-${PDF.length.toString(16)}"`],
	["last-modified", new Date(RECEIVED_MS).toUTCString()],
];
const RECEIVED_FILE: [string, string][] = [
	["content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox"],
	["content-disposition", 'inline; filename="fax_one.pdf"'],
	...FILE_VALIDATORS,
];
const HTML_TYPE: [string, string] = ["content-type", "text/html; charset=utf-8"];
/** The fields of every /faxtest page: 200, 404 and 410 alike, each kept in memory, compressed where asked. */
const PAGE_FIELDS: [string, string][] = [
	["content-length", LENGTH],
	HTML_TYPE,
	["content-security-policy", PAGE_POLICY],
	["vary", "Accept-Encoding"],
];
/** A fax's page is its current representation: with its ETag besides. */
const FAX_PAGE_FIELDS: [string, string][] = [...PAGE_FIELDS, ["etag", ETAG]];
const DOCS_POLICY =
	"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const sha256 = (text: string) => `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;

/** The policy a fax page must carry: its inline style and script by hash, images from the CDN only. */
function pagePolicyOf(html: string): string {
	const style = /<style>([^<]*)<\/style>/.exec(html)?.[1];
	const script = /<script>([^<]*)<\/script>/.exec(html)?.[1];
	const image = html.includes("<img ") ? " https://cdn.test.example" : "";
	return [
		"default-src 'none'",
		...(script === undefined ? [] : [`script-src ${sha256(script)}`]),
		`style-src ${sha256(style ?? "")}`,
		`img-src 'self'${image}`,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	].join("; ");
}

const kinds: [string, string, Record<string, string>, number, [string, string][]][] = [
	["GET", "/faxtest/fax_one", {}, 200, FAX_PAGE_FIELDS],
	["HEAD", "/faxtest/fax_one", {}, 200, FAX_PAGE_FIELDS],
	["GET", "/faxtest/fax_none", {}, 404, PAGE_FIELDS],
	["GET", "/faxtest/fax_gone", {}, 410, PAGE_FIELDS],
	[
		"GET",
		"/docs",
		{},
		200,
		[["content-length", LENGTH], HTML_TYPE, ["content-security-policy", PAGE_POLICY], ...represented],
	],
	[
		"HEAD",
		"/docs",
		{},
		200,
		[["content-length", LENGTH], HTML_TYPE, ["content-security-policy", PAGE_POLICY], ...represented],
	],
	[
		"GET",
		"/docs/interactive",
		{},
		200,
		[["content-length", LENGTH], HTML_TYPE, ["content-security-policy", DOCS_POLICY], ...represented],
	],
	[
		"GET",
		"/favicon.svg",
		{},
		200,
		[["content-length", LENGTH], ["content-type", "image/svg+xml"], ...represented],
	],
	[
		"GET",
		"/docs/redoc.standalone.js",
		{},
		200,
		[["content-length", LENGTH], ["content-type", "text/javascript; charset=utf-8"], ...represented],
	],
	[
		"GET",
		"/docs/API.md",
		{},
		200,
		[["content-length", LENGTH], ["content-type", "text/plain; charset=utf-8"], ...represented],
	],
	["GET", "/openapi.json", {}, 200, [["content-length", LENGTH], JSON_TYPE, ...represented]],
	[
		"GET",
		"/cdn/faxes/fax_one.pdf",
		{},
		200,
		[
			["accept-ranges", "bytes"],
			["content-length", LENGTH],
			["content-type", "application/pdf"],
			...RECEIVED_FILE,
		],
	],
	[
		"HEAD",
		"/cdn/faxes/fax_one.pdf",
		{},
		200,
		[
			["accept-ranges", "bytes"],
			["content-length", "25"],
			["content-type", "application/pdf"],
			...RECEIVED_FILE,
		],
	],
	[
		"GET",
		"/cdn/faxes/fax_one.pdf",
		{ range: "bytes=5-7" },
		206,
		[
			["accept-ranges", "bytes"],
			["content-length", "3"],
			["content-range", "bytes 5-7/25"],
			["content-type", "application/pdf"],
			...RECEIVED_FILE,
		],
	],
	[
		"GET",
		"/cdn/faxes/fax_one.pdf",
		{ range: "bytes=25-" },
		416,
		[["accept-ranges", "bytes"], ["content-length", "0"], ["content-range", "bytes */25"], ...RECEIVED_FILE],
	],
	["GET", "/cdn/faxes/fax_one.pdf", { "if-none-match": "*" }, 304, RECEIVED_FILE],
	[
		"GET",
		"/cdn/faxes/fax_one-thumb.jpg",
		{},
		200,
		[
			["accept-ranges", "bytes"],
			["content-disposition", 'inline; filename="fax_one-thumb.jpg"'],
			["content-length", LENGTH],
			["content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox"],
			["content-type", "image/jpeg"],
			...FILE_VALIDATORS,
		],
	],
];

test("every kind of answer besides the API's: pages, docs, descriptions, received files", async () => {
	const files = join(server.storageDir, "faxes");
	for (const name of ["fax_one.pdf", "fax_one-thumb.jpg"]) {
		await Bun.write(join(files, name), PDF);
		utimesSync(join(files, name), WRITTEN, WRITTEN);
	}
	for (const [method, path, headers, status, own] of kinds) {
		const response = await server.request(path, { method, headers, decompress: false });
		// A HEAD's length and policy are those of the GET's body.
		const body = await (method === "HEAD"
			? await server.request(path, { headers })
			: response.clone()
		).text();
		const expected = new Map([...EVERY_ANSWER]);
		for (const [name, value] of own) {
			const derived: Record<string, string> = {
				[LENGTH]: String(Buffer.byteLength(body)),
				[PAGE_POLICY]: pagePolicyOf(body),
			};
			expected.set(name, value === ETAG ? etagOf(body) : (derived[value] ?? value));
		}
		expect([method, path, response.status]).toEqual([method, path, status]);
		expect([method, path, response.headers.get("date")]).toEqual([
			method,
			path,
			expect.stringMatching(HTTP_DATE),
		]);
		const fixed = [...response.headers].filter(([name]) => name !== "date" && name !== "x-request-id");
		expect([method, path, fixed]).toEqual([
			method,
			path,
			[...expected].sort(([a], [b]) => a.localeCompare(b)),
		]);
		await response.arrayBuffer();
	}
});

test("the admin listener's answers carry the same security headers", async () => {
	for (const [method, path, status] of [
		["GET", "/healthz", 200],
		["HEAD", "/healthz", 200],
		["GET", "/readyz", 200],
		["GET", "/nope", 404],
	] as const) {
		const response = await fetch(`${server.adminUrl}${path}`, { method });
		expect([path, response.status]).toEqual([path, status]);
		expect([method, path, response.headers.get("date")]).toEqual([
			method,
			path,
			expect.stringMatching(HTTP_DATE),
		]);
		const own = [...response.headers].filter(
			([name]) => !["date", "content-length", "content-type"].includes(name),
		);
		expect([method, path, own]).toEqual([
			method,
			path,
			[["cache-control", "no-store"] as [string, string], ...SECURITY].sort(([a], [b]) => a.localeCompare(b)),
		]);
		await response.arrayBuffer();
	}
});
