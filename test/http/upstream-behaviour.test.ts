import { expect, test } from "bun:test";
import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { rawExchange } from "../../testkit/raw-http.ts";

// What the workarounds of docs/decisions.md ("Workarounds") work around, on
// the bare upstream code: each test fails once the upstream behaviour
// changes, and its workaround can then go. That each workaround still works
// is held by the tests of the service's own answers.

test("Elysia 1.4: a global mapResponse that returns nothing after an error hook empties the answer", async () => {
	// lib/http/request-log.ts hands responseValue back for this reason.
	const app = new Elysia()
		.onError(({ set }) => {
			set.status = 404;
			return '{"message":""}';
		})
		.mapResponse({ as: "global" }, () => {});
	const answer = await app.handle(new Request("http://localhost/none"));
	expect([answer.status, await answer.text()]).toEqual([404, ""]);
});

test("@elysiajs/cors 1.4: a wildcard origin marks the answer Vary: *", async () => {
	// lib/http/answer-headers.ts sets the wildcard itself (origin: false).
	const app = new Elysia().use(cors({ origin: "*" })).get("/", () => "x");
	const answer = await app.handle(
		new Request("http://localhost/", { headers: { origin: "https://a.example" } }),
	);
	expect(answer.headers.get("vary")).toBe("*");
});

test("@elysiajs/cors 1.4: its preflight takes every OPTIONS for one and echoes undefined headers", async () => {
	// lib/http/answer-headers.ts answers preflights itself (preflight: false).
	const app = new Elysia().use(cors()).get("/", () => "x");
	const answer = await app.handle(new Request("http://localhost/", { method: "OPTIONS" }));
	expect([answer.status, answer.headers.get("access-control-allow-headers")]).toEqual([204, "undefined"]);
});

test("Bun 1.4.5: past its default 128 MiB, a declared body gets a bare 413 before the app", async () => {
	// lib/server.ts raises maxRequestBodySize, as no route reads a body.
	using server = Bun.serve({
		port: 0,
		hostname: "127.0.0.1",
		fetch: () => new Response(null, { status: 405 }),
	});
	const answer = await rawExchange(
		server.port ?? 0,
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 209715200\r\nConnection: close\r\n\r\n{",
		{ timeoutMs: 3000 },
	);
	expect(answer.status).toBe(413);
	expect(answer.headers["cache-control"]).toBeUndefined();
});
