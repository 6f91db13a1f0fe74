import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Socket } from "node:net";
import { faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { rawExchange } from "../../testkit/raw-http.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// What Bun answers by itself, before the app sees the request: fixed bytes
// that the app cannot change (docs/reliability.md). Pinned here so a Bun
// upgrade that changes them is noticed.
const TOO_LARGE = "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n";
const BAD_REQUEST = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";
const VERSION = "HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({ faxes: [faxRecord()], clock: fixedClock });
});
afterAll(() => server.stop());

function send(request: string) {
	return rawExchange(server.port, request, { timeoutMs: 3000 });
}

/** A GET of the list with `extra` header lines, closing the connection after the answer. */
function listWith(extra: string): string {
	return `GET /api/faxes HTTP/1.1\r\nHost: api.test\r\nUser-Agent: t\r\n${extra}Connection: close\r\n\r\n`;
}

describe("the request head", () => {
	test("up to 16 KiB reaches the app and gets the contract's headers", async () => {
		const answer = await send(listWith(`X-Padding: ${"x".repeat(16_000)}\r\n`));
		expect(answer.status).toBe(200);
		expect(answer.headers["cache-control"]).toBe("no-store, private");
		expect(answer.headers["access-control-allow-origin"]).toBe("*");
	});

	test("past 16 KiB, or past 200 header lines, Bun answers a bare 431", async () => {
		expect((await send(listWith(`X-Padding: ${"x".repeat(16_400)}\r\n`))).raw).toBe(TOO_LARGE);
		const lines = Array.from({ length: 200 }, (_, i) => `X-Line-${i}: v\r\n`).join("");
		expect((await send(listWith(lines))).raw).toBe(TOO_LARGE);
		expect((await send(`GET /api/faxes?from=${"a".repeat(17_000)} HTTP/1.1\r\nHost: a\r\n\r\n`)).raw).toBe(
			TOO_LARGE,
		);
	});
});

describe("requests Bun's parser refuses", () => {
	test.each([
		["a header line without a colon", listWith("Broken header\r\n")],
		["a NUL byte in a header value", listWith("X-Value: a\0b\r\n")],
		["HTTP/1.1 without Host", "GET /api/faxes HTTP/1.1\r\nUser-Agent: t\r\n\r\n"],
		[
			"Content-Length beside Transfer-Encoding",
			listWith("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n"),
		],
		["a Content-Length that is no number", listWith("Content-Length: abc\r\n")],
		["OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"],
	])("%s: a bare 400", async (_, request) => {
		expect((await send(request)).raw).toBe(BAD_REQUEST);
	});

	test.each([
		["HTTP/0.9 (no version)", "GET /api/faxes\r\n\r\n"],
		["bare LF line endings", "GET /api/faxes HTTP/1.1\nHost: a\nUser-Agent: t\n\n"],
		["HTTP/2.0 in the request line", "GET /api/faxes HTTP/2.0\r\nHost: a\r\n\r\n"],
		["a space in the target", "GET /api/ faxes HTTP/1.1\r\nHost: a\r\n\r\n"],
	])("%s: a bare 505", async (_, request) => {
		expect((await send(request)).raw).toBe(VERSION);
	});

	test.each([
		["an unknown method", "FOO /api/faxes HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\nConnection: close\r\n\r\n"],
		[
			"a method in lower case",
			"get /api/faxes HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\nConnection: close\r\n\r\n",
		],
		[
			"BREW (RFC 2324)",
			"BREW /api/faxes/fax_x HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\nConnection: close\r\n\r\n",
		],
		[
			"an unknown method on a path that is no endpoint",
			"FOO /docs HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		],
	])(
		"%s: the connection is closed without an answer (oven-sh/bun#6556; docs/decisions.md, Known limitations)",
		async (_, request) => {
			const answer = await send(request);
			expect(answer.raw).toBe("");
			expect(answer.status).toBe(0);
		},
	);
});

describe("what the app answers after all", () => {
	test("a method Bun knows but the API does not serve is the app's 405", async () => {
		const answer = await send(
			"PROPFIND /api/faxes HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\nConnection: close\r\n\r\n",
		);
		expect(answer.status).toBe(405);
		expect(answer.headers).toMatchObject({
			allow: "GET, HEAD",
			"cache-control": "no-store, private",
			"access-control-allow-origin": "*",
		});
	});

	test("a body declared larger than Bun's 128 MiB default is drained unread and answered 405 by the app", async () => {
		const socket = new Socket();
		let received = "";
		const answered = new Promise<void>((resolve) => {
			socket.on("data", (chunk: Buffer) => {
				received += chunk.toString("latin1");
				if (received.includes("\r\n\r\n")) resolve();
			});
		});
		socket.on("error", () => {});
		socket.connect(server.port, "127.0.0.1", () => {
			socket.write(
				"POST /api/faxes HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\nContent-Type: application/json\r\nContent-Length: 209715200\r\n\r\n{",
			);
		});
		await answered;
		socket.destroy();
		expect(received).toStartWith("HTTP/1.1 405 Method Not Allowed\r\n");
		expect(received.toLowerCase()).toContain("\r\ncache-control: no-store, private\r\n");
		expect(received.toLowerCase()).toContain("\r\naccess-control-allow-origin: *\r\n");
	});
});
