import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const EXPOSED =
	"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag";
let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock, faxes: [faxRecord({ slug: "fax_one" })] });
});
afterAll(() => server.stop());

/** Sends bytes as they are over TCP and returns the whole answer. */
async function rawRequest(request: string): Promise<string> {
	const chunks: string[] = [];
	const { promise, resolve } = Promise.withResolvers<void>();
	const socket = await Bun.connect({
		hostname: "127.0.0.1",
		port: server.port,
		socket: {
			data: (_, data) => {
				chunks.push(new TextDecoder().decode(data));
			},
			close: () => resolve(),
		},
	});
	socket.write(request);
	await promise;
	return chunks.join("");
}

/** Nothing varies by origin; a 200 varies by Accept-Encoding only. */
function expectCommonHeaders(response: Response) {
	expect(response.headers.get("cache-control")).toBe("no-store, private");
	expect(response.headers.get("access-control-allow-origin")).toBe("*");
	expect(response.headers.get("access-control-allow-credentials")).toBeNull();
	expect(response.headers.get("vary")).toBe(response.status === 200 ? "Accept-Encoding" : null);
}

describe("every answer", () => {
	test("carries Cache-Control and CORS headers, on every path and method", async () => {
		const cases: [string, RequestInit, number][] = [
			["/api/faxes", {}, 200],
			["/api/faxes/fax_one", {}, 200],
			["/api/faxes/fax_none", {}, 404],
			["/api/faxes?limit=0", {}, 422],
			["/", {}, 404],
			["/api/faxes", { method: "DELETE" }, 405],
			["/api/faxes", { headers: { "user-agent": "Python-urllib/3.12" } }, 403],
			["/nope", { method: "POST" }, 404],
		];
		for (const [path, init, status] of cases) {
			const response = await server.request(path, init);
			expect(response.status).toBe(status);
			expectCommonHeaders(response);
			expect(response.headers.get("access-control-expose-headers")).toBe(EXPOSED);
		}
	});

	test("JSON error bodies when the request has no Accept header at all", async () => {
		// fetch always adds an Accept header, so the request is written by hand.
		const raw = await rawRequest(
			"GET /api/faxes/fax_none HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\nConnection: close\r\n\r\n",
		);
		expect(raw).toStartWith("HTTP/1.1 404 Not Found\r\n");
		expect(raw).toContain("\r\nContent-Type: application/json; charset=utf-8\r\n");
		expect(raw).toEndWith('\r\n\r\n{"message":""}');
	});
});

describe("unknown paths", () => {
	test("404 with an empty message and no rate-limit headers", async () => {
		for (const path of [
			"/",
			"/api",
			"/api/fax",
			"/api/faxes/fax_one/pdf",
			"/cdn/faxes/x.pdf",
			"/favicon.ico",
		]) {
			const response = await server.request(path);
			expect(response.status).toBe(404);
			expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
			expect(await response.text()).toBe('{"message":""}');
			expect(response.headers.get("x-ratelimit-limit")).toBeNull();
		}
	});
	test("/api/faxes/ is the fax endpoint with an empty slug: its counted 404, and 405 for other methods", async () => {
		const get = await server.request("/api/faxes/?limit=5");
		expect([get.status, await get.text(), get.headers.get("x-ratelimit-limit")]).toEqual([
			404,
			'{"message":""}',
			"1000000",
		]);
		const head = await server.request("/api/faxes/", { method: "HEAD" });
		expect([head.status, await head.text(), head.headers.get("x-ratelimit-limit")]).toEqual([
			404,
			"",
			"1000000",
		]);
		const deleted = await server.request("/api/faxes/", { method: "DELETE" });
		expect([deleted.status, deleted.headers.get("allow"), await deleted.json()]).toEqual([
			405,
			"GET, HEAD",
			{ message: "The method is not allowed. Use GET or HEAD." },
		]);
	});

	test("any other trailing slash is another path: 404 on every route, for every method", async () => {
		for (const path of [
			"/api/faxes//",
			"/api/faxes/fax_one/",
			"/api/faxes/fax_none/",
			"/openapi.json/",
			"/docs/",
		]) {
			for (const method of ["GET", "HEAD", "DELETE"]) {
				const response = await server.request(path, { method });
				expect([path, method, response.status]).toEqual([path, method, 404]);
				expect(await response.text()).toBe(method === "HEAD" ? "" : '{"message":""}');
				expect(response.headers.get("x-ratelimit-limit")).toBeNull();
			}
		}
	});
});

describe("methods", () => {
	test("405 with Allow and a JSON message for other methods on endpoint paths", async () => {
		for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
			for (const path of ["/api/faxes", "/api/faxes/fax_one"]) {
				const response = await server.request(path, { method });
				expect(response.status).toBe(405);
				expect(response.headers.get("allow")).toBe("GET, HEAD");
				expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
				expect(await response.json()).toEqual({ message: "The method is not allowed. Use GET or HEAD." });
				expect(response.headers.get("x-ratelimit-remaining")).not.toBeNull();
			}
		}
	});

	test("405 also when a POST carries a broken JSON body", async () => {
		const response = await server.request("/api/faxes", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: "{broken",
		});
		expect(response.status).toBe(405);
		expect(await response.json()).toEqual({ message: "The method is not allowed. Use GET or HEAD." });
	});

	test("HEAD answers with the status and headers of GET and no body", async () => {
		for (const [path, status] of [
			["/api/faxes", 200],
			["/api/faxes/fax_one", 200],
			["/api/faxes/fax_none", 404],
			["/api/faxes?limit=0", 422],
		] as const) {
			const get = await server.request(path);
			const getBody = await get.text();
			const head = await server.request(path, { method: "HEAD" });
			expect(head.status).toBe(status);
			expect(await head.text()).toBe("");
			expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
			expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(getBody)));
			expect(head.headers.get("cache-control")).toBe("no-store, private");
			expect(head.headers.get("x-ratelimit-limit")).toBe("1000000");
		}
	});
});

describe("CORS", () => {
	test("a preflight answers 204 with methods, the asked headers and a max age of a day", async () => {
		for (const path of ["/api/faxes", "/api/faxes/fax_one"]) {
			const response = await server.request(path, {
				method: "OPTIONS",
				headers: {
					origin: "https://app.example",
					"access-control-request-method": "GET",
					"access-control-request-headers": "x-client, content-type",
				},
			});
			expect(response.status).toBe(204);
			expectCommonHeaders(response);
			expect(response.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
			expect(response.headers.get("access-control-allow-headers")).toBe("x-client, content-type");
			expect(response.headers.get("access-control-max-age")).toBe("86400");
			expect(response.headers.get("x-ratelimit-limit")).toBeNull();
			expect(await response.text()).toBe("");
		}
	});

	test("the origin is never echoed", async () => {
		const response = await server.request("/api/faxes", { headers: { origin: "https://evil.example" } });
		expect(response.headers.get("access-control-allow-origin")).toBe("*");
	});
});

describe("the default Python urllib User-Agent", () => {
	test("403 with a text body, not counted, no rate-limit headers", async () => {
		const response = await server.request("/api/faxes", { headers: { "user-agent": "Python-urllib/3.11" } });
		expect(response.status).toBe(403);
		expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		expect(await response.text()).toBe(
			"Forbidden: set a User-Agent of your own. The API is described at /docs.\n",
		);
		expect(response.headers.get("x-ratelimit-limit")).toBeNull();
		const other = await server.request("/api/faxes", { headers: { "user-agent": "python-requests/2.32" } });
		expect(other.status).toBe(200);
	});

	test("a plain OPTIONS (no preflight) gets the 403 too, on an endpoint and elsewhere (a fuzzing counterexample)", async () => {
		const answers = [];
		for (const path of ["/api/faxes/fax_0", "/api/faxes", "/a."]) {
			const response = await server.request(path, {
				method: "OPTIONS",
				headers: { "user-agent": "Python-urllib/3.12" },
			});
			answers.push([path, response.status, response.headers.get("x-ratelimit-limit")]);
		}
		expect(answers).toEqual([
			["/api/faxes/fax_0", 403, null],
			["/api/faxes", 403, null],
			["/a.", 403, null],
		]);
	});

	test("the address the 403 names is the docs page", async () => {
		const docs = await server.request("/docs", { headers: { "user-agent": "python-requests/2.32" } });
		expect([docs.status, docs.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
		const page = await docs.text();
		expect(page).toContain("<h1>testfax API ");
		expect(page).toContain('<a href="/docs/interactive">Interactive reference</a>');
	});
});
