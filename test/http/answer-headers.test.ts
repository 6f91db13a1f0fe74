import { afterAll, beforeAll, expect, test } from "bun:test";
import { faxRecord, fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// The exact header set of every kind of answer, so that work on how answers
// are built cannot add, drop or change a header unnoticed.

const EVERY_ANSWER: [string, string][] = [
	["access-control-allow-headers", "Accept"],
	["access-control-allow-methods", "GET, HEAD, OPTIONS"],
	["access-control-allow-origin", "*"],
	[
		"access-control-expose-headers",
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag",
	],
	["cache-control", "no-store, private"],
];
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
	[
		"GET",
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
		expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
		const fixed = [...response.headers].filter(([name]) => name !== "date" && name !== "x-request-id");
		expect(fixed).toEqual([...expected].sort(([a], [b]) => a.localeCompare(b)));
		await response.arrayBuffer();
	}
});
