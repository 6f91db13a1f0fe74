import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { type RawAnswer, rawExchange } from "../../testkit/raw-http.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock, faxes: [faxRecord({ slug: "fax_one" })] });
});
afterAll(() => server.stop());

// Every method Bun hands to the app: the ones it routes itself and the others.
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "QUERY"];
const PATHS = [
	"/api/faxes",
	"/api/faxes?limit=0",
	"/api/faxes?since=2026-11-22T10:00:00Z&from=a/b",
	"/api/faxes/fax_one",
	"/api/faxes/fax_none",
	"/api/faxes/not-a-slug",
	"/cdn/faxes/fax_one.pdf",
	"/",
	"/nope",
	"/x/api/faxes",
	"/xxxxxx/api/faxes",
	"/api/faxes/fax_one/more",
];
// null: no Host line at all, in HTTP/1.0 where that is allowed.
const HOSTS: (string | null)[] = [
	"api",
	"a",
	"x:1",
	"",
	"[::1]",
	"[::1]:3000",
	"[2001:db8::1]:8080",
	`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.example`,
	null,
];

/** What a client can tell apart in an answer: everything but the date, the request id and how many requests are left. */
function shape(answer: RawAnswer) {
	const {
		date: _date,
		"x-request-id": _id,
		"x-ratelimit-remaining": remaining,
		ratelimit: _left,
		...headers
	} = answer.headers;
	return { status: answer.status, headers, counted: remaining !== undefined, body: answer.body };
}

function request(method: string, path: string, host: string | null): string {
	const version = host === null ? "HTTP/1.0" : "HTTP/1.1";
	const hostLine = host === null ? "" : `Host: ${host}\r\n`;
	return `${method} ${path} ${version}\r\n${hostLine}User-Agent: t\r\nConnection: close\r\n\r\n`;
}

test("the Host header, short, long, IPv6, empty or missing, never changes an answer", async () => {
	const differences: string[] = [];
	for (const method of METHODS) {
		for (const path of PATHS) {
			const expected = shape(await rawExchange(server.port, request(method, path, "localhost")));
			for (const host of HOSTS) {
				const answer = shape(await rawExchange(server.port, request(method, path, host)));
				if (!Bun.deepEquals(answer, expected)) {
					differences.push(
						`${method} ${path} Host ${JSON.stringify(host)}: ${answer.status}, not ${expected.status}`,
					);
				}
			}
		}
	}
	expect(differences).toEqual([]);
});

test("with the shortest Host, another method on an endpoint is a counted 405, and an unknown path a 404", async () => {
	const endpoint = await rawExchange(server.port, request("DELETE", "/api/faxes/x", "api"));
	expect([endpoint.status, endpoint.headers.allow, endpoint.headers["x-ratelimit-limit"]]).toEqual([
		405,
		"GET, HEAD",
		"1000000",
	]);
	for (const path of ["/x/api/faxes", "/xxxxxx/api/faxes"]) {
		for (const host of ["api", null]) {
			const unknown = await rawExchange(server.port, request("GET", path, host));
			expect([path, host, unknown.status, unknown.headers["x-ratelimit-limit"], unknown.body]).toEqual([
				path,
				host,
				404,
				undefined,
				'{"message":""}',
			]);
		}
	}
});

// RFC 9112 3.2: more than one Host line, or a value that is no uri-host
// [":" port], is a 400. Bun 1.4.5 hands both to the app (two lines joined by ", ").
describe("a Host the request cannot have", () => {
	const invalid: [string, string][] = [
		["two Host lines", "Host: a\r\nHost: b\r\n"],
		["two equal Host lines", "Host: api\r\nHost: api\r\n"],
		["a second, empty Host line", "Host: api\r\nHost:\r\n"],
		["a space in the value", "Host: a b\r\n"],
		["userinfo", "Host: user@api\r\n"],
		["a path", "Host: api/x\r\n"],
		["a port with a letter", "Host: api:8o\r\n"],
		["an unclosed IPv6 literal", "Host: [::1\r\n"],
		["a broken percent escape", "Host: a%zz\r\n"],
	];
	test.each(invalid)("%s: a JSON 400 with the headers of every answer, not counted", async (_, hostLines) => {
		for (const [method, path] of [
			["GET", "/api/faxes"],
			["DELETE", "/api/faxes/fax_one"],
			["GET", "/nope"],
		]) {
			const answer = await rawExchange(
				server.port,
				`${method} ${path} HTTP/1.1\r\n${hostLines}User-Agent: t\r\nConnection: close\r\n\r\n`,
			);
			expect([method, path, answer.status, answer.body]).toEqual([
				method,
				path,
				400,
				'{"message":"The Host header must name one host, with an optional port."}',
			]);
			expect(answer.headers).toMatchObject({
				"content-type": "application/json; charset=utf-8",
				"cache-control": "no-store, private",
				"access-control-allow-origin": "*",
			});
			expect(answer.headers["x-ratelimit-limit"]).toBeUndefined();
		}
	});

	test("valid values stay valid: sub-delimiters, percent escapes, an empty port, IPv6 and IPvFuture literals", async () => {
		for (const host of ["a,b", "a%41b", "api:", "a!$&'()*+;=~_-.b", "[v1.fe]:80", "[::ffff:1.2.3.4]"]) {
			const answer = await rawExchange(server.port, request("GET", "/api/faxes/fax_one", host));
			expect([host, answer.status]).toEqual([host, 200]);
		}
	});
});
