import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { fixedClock } from "../../testkit/fixtures.ts";
import { parseAnswer, type RawAnswer, rawExchange } from "../../testkit/raw-http.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { BUN_OWN_STATUSES, exchange, Tally } from "./answers.ts";
import { insertCatalogue } from "./catalogue.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

/**
 * Requests HTTP does not allow, or past Bun's limits: Bun answers some by
 * itself (docs/reliability.md); whatever reaches the application is answered
 * with the headers of every answer, nothing is a 500 or 503, and the server
 * keeps answering.
 */

let server: TestServer;
const tally = new Tally("malformed requests");

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
	await insertCatalogue(server.databasePath);
});
afterAll(async () => {
	tally.report(CASES.malformedRequests[LONG_RUN ? "long" : "fast"]);
	await server.stop();
});

const APP_STATUSES = new Set([200, 204, 403, 404, 405, 410, 422]);

const method = fc.oneof(
	fc.constantFrom(
		"GET",
		"HEAD",
		"get",
		"Get",
		"FOO",
		"G ET",
		"GET\t",
		"",
		"PRI",
		"BREW",
		"CONNECT",
		"\x00GET",
	),
	fc.stringMatching(/^[A-Z]{1,12}$/),
	fc.stringMatching(/^[\x21-\x7e]{1,10}$/),
);
const target = fc.oneof(
	fc.constantFrom(
		"/api/faxes",
		"/api/faxes/fax_Cat001",
		"*",
		"api/faxes",
		"",
		"/api/faxes?from=a b",
		"/api/faxes?from=\x01",
		"/api/faxes\x00",
		"/api/faxes?from=\x7f",
		"localhost:3000",
		"http://",
		"http://[::1/api/faxes",
		"/api/faxes?#frag",
		`/api/faxes?from=${"a".repeat(20_000)}`,
		"/\xff\xfe",
	),
	fc.stringMatching(/^\/[\x20-\x7e]{0,40}$/),
);
const version = fc.constantFrom(
	"HTTP/1.1",
	"HTTP/1.1",
	"HTTP/1.0",
	"HTTP/0.9",
	"HTTP/2.0",
	"HTTP/1.2",
	"HTTP/1",
	"http/1.1",
	"",
	"HTTP/1.1 x",
);
const lineEnd = fc.constantFrom("\r\n", "\r\n", "\r\n", "\n", "\r", "\n\r");
const header = fc.oneof(
	fc.constantFrom(
		"Host: localhost",
		"Host: localhost",
		"User-Agent: fuzz",
		"X A: b",
		"X-A b",
		": empty-name",
		"X-A: b\x01c",
		"X-A: b\x00c",
		" folded: line",
		"X-A: one\r\n two",
		"Content-Length: abc",
		"Content-Length: -1",
		"Content-Length: 1, 2",
		"Content-Length: 99999999999999999999",
		"Transfer-Encoding: chunked",
		"Transfer-Encoding: gzip, chunked",
		"Transfer-Encoding: chunked\r\nContent-Length: 3",
		"Host: a\r\nHost: b",
		`X-Big: ${"b".repeat(17_000)}`,
		"Upgrade: websocket\r\nConnection: Upgrade",
		"Expect: 100-continue",
		"Expect: nonsense",
		"X-Forwarded-For: \u00ff",
		"\u00e9: value",
	),
	fc.stringMatching(/^[\x21-\x7e]{1,12}: [\x20-\x7e]{0,30}$/),
);

const malformed = fc
	.record({
		method,
		target,
		version,
		lineEnd,
		headers: fc.array(header, { maxLength: 5 }),
		body: fc.constantFrom("", "", "abc", "0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", "zz\r\n"),
	})
	.map(({ method, target, version, lineEnd, headers, body }) => {
		const line = version === "" ? `${method} ${target}` : `${method} ${target} ${version}`;
		return `${[line, ...headers, "Connection: close"].join(lineEnd)}${lineEnd}${lineEnd}${body}`;
	});

/** The answer after any interim `100 Continue`. */
function finalAnswer(answer: RawAnswer): RawAnswer {
	if (answer.status !== 100) return answer;
	return finalAnswer(parseAnswer(answer.raw.slice(answer.raw.indexOf("\r\n\r\n") + 4)));
}

test(
	"a malformed request gets Bun's own refusal or an answer with the headers of every answer, never a 500, and the server keeps answering",
	async () => {
		await fc.assert(
			fc.asyncProperty(malformed, async (request) => {
				const answer = tally.see(
					finalAnswer(await rawExchange(server.port, Buffer.from(request, "latin1"), { timeoutMs: 2000 })),
				);
				const problems: string[] = [];
				if (!BUN_OWN_STATUSES.has(answer.status) && !APP_STATUSES.has(answer.status)) {
					problems.push(`status ${answer.status}: ${answer.raw.slice(0, 400)}`);
				}
				// Bun's own 400 is bare; the app's (a Host the request cannot have) has a body.
				if (APP_STATUSES.has(answer.status) || (answer.status === 400 && answer.body !== "")) {
					if (answer.headers["cache-control"] !== "no-store, private") problems.push("no Cache-Control");
					if (answer.headers["access-control-allow-origin"] !== "*") problems.push("no CORS");
				}
				const after = tally.see(await exchange(server.port, "GET", "/api/faxes?limit=1"));
				if (after.status !== 200) problems.push(`then a plain request got ${after.status}`);
				expect({ request: request.slice(0, 300), problems }).toEqual({
					request: request.slice(0, 300),
					problems: [],
				});
			}),
			runs("malformedRequests"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
