import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { answerProblems, type Expected, exchange, isCounted, Tally } from "./answers.ts";
import { insertCatalogue } from "./catalogue.ts";
import { expectedListAnswer } from "./list-oracle.ts";
import { request } from "./requests.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

const LIMIT = 5;
let server: TestServer;
let limited: TestServer;
const tally = new Tally("requests");

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
	limited = await startTestServer({ clock: fixedClock, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
	await insertCatalogue(server.databasePath);
	await insertCatalogue(limited.databasePath);
});
afterAll(async () => {
	tally.report(CASES.requests[LONG_RUN ? "long" : "fast"] + CASES.rateLimited[LONG_RUN ? "long" : "fast"]);
	await Promise.all([server.stop(), limited.stop()]);
});

test(
	"every path, method and header set gets the answer the contract gives, with the headers of every answer",
	async () => {
		await fc.assert(
			fc.asyncProperty(request, async ({ method, target, headers, body, expected }) => {
				const answer = tally.see(await exchange(server.port, method, target, headers, body));
				const problems = answerProblems(answer, expected, method);
				expect({ method, target, headers, problems }).toEqual({ method, target, headers, problems: [] });
			}),
			runs("requests"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

// Found by the long run (seeds -68336822 and 811071655): the body of a
// compressed answer was read as text, not decoded from its Content-Encoding,
// and then the empty body of a HEAD was decoded.
test.each([
	["GET", "gzip, br, zstd"],
	["GET", "gzip"],
	["HEAD", "gzip, br, zstd"],
])(
	"the default list, %s with Accept-Encoding: %s, is the contract's list, compressed",
	async (method, accepted) => {
		const answer = await exchange(server.port, method, "/api/faxes", [["Accept-Encoding", accepted]]);
		expect(answer.headers["content-encoding"]).toBe(accepted === "gzip" ? "gzip" : "br");
		expect(answerProblems(answer, expectedListAnswer("", NOW_SECONDS), method)).toEqual([]);
	},
);

// Found by the long run (seed -74770684): the model took `If-None-Match: *`
// for a header that must not change the answer, while RFC 9110 makes it match
// every current list and fax.
test.each(["GET", "HEAD"])(
	"the default list, %s with If-None-Match: *, is a 304 without a body",
	async (method) => {
		const answer = await exchange(server.port, method, "/api/faxes", [["If-None-Match", "*"]]);
		expect(answer.headers.etag).toBe((await exchange(server.port, "GET", "/api/faxes")).headers.etag);
		expect(answerProblems(answer, { kind: "not-modified" }, method)).toEqual([]);
	},
);

// Found by the long run (seed -1793231041): LINK /api/faxes/.. is routed by
// request.url (/api/, no route), while Bun 1.4.5 matches GET to its fax route
// as sent, with the slug "..". Both are 404s; the model now knows each.
test.each([
	["LINK", "/api/faxes/..", { kind: "unknown-path" }],
	["GET", "/api/faxes/..", { kind: "missing" }],
	["HEAD", "/api/faxes/%2e%2e", { kind: "missing" }],
	["GET", "/faxtest/..", { kind: "page", status: 404 }],
	["LINK", "/api/faxes/.", { kind: "method" }],
	["GET", "/api/faxes/fax_Cat001/..", { kind: "missing" }],
	// A last backslash is a trailing slash to request.url: no route (strict paths).
	["PATCH", "/api/faxes/fax_a\\", { kind: "unknown-path" }],
	["GET", "/api/faxes/fax_a\\", { kind: "missing" }],
] as [string, string, Expected][])(
	"%s %s: the answer of the path Bun or request.url routes",
	async (method, target, expected) => {
		expect(answerProblems(await exchange(server.port, method, target), expected, method)).toEqual([]);
	},
);

test(
	"once the window is used up, every answer of an endpoint is the contract's 429 and nothing else changes",
	async () => {
		// The clock stands still, so the window opened by the first counted answer never ends.
		let counted = 0;
		await fc.assert(
			fc.asyncProperty(request, async ({ method, target, headers, body, expected }) => {
				const answer = tally.see(await exchange(limited.port, method, target, headers, body));
				const due =
					isCounted(expected) && counted >= LIMIT
						? ({ kind: "limited", resetAt: NOW_SECONDS + 60 } as const)
						: expected;
				if (isCounted(expected)) counted++;
				const problems = answerProblems(answer, due, method);
				expect({ method, target, headers, problems }).toEqual({ method, target, headers, problems: [] });
			}),
			runs("rateLimited"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
