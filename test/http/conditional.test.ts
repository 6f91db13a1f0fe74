import { afterEach, describe, expect, test } from "bun:test";
import { ago, faxRecord, NOW_MS, NOW_SECONDS } from "../../testkit/fixtures.ts";
import {
	openServerStore,
	sameDatabase,
	type TestServer,
	type TestServerOptions,
	useTestServers,
} from "../../testkit/server.ts";

// Conditional requests: an ETag on every 200 of an endpoint, derived from the
// answer's bytes; If-None-Match with it answers 304, counted like any answer.

const RETENTION_SECONDS = 30 * 86_400;
/** Every fax still within retention. */
const ALL = `/api/faxes?since=${ago(RETENTION_SECONDS + 3600)}&limit=100`;
const EXPIRING_IN_SECONDS = 30;
const FAXES = [
	faxRecord({ slug: "fax_new1" }),
	faxRecord({ slug: "fax_new2", received_at: ago(120) }),
	faxRecord({ slug: "fax_old1", received_at: ago(RETENTION_SECONDS - EXPIRING_IN_SECONDS) }),
];
const EXPOSED =
	"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag";

const start = useTestServers();
let nowMs = NOW_MS;
afterEach(() => {
	nowMs = NOW_MS;
});

function serve(options: TestServerOptions = {}): Promise<TestServer> {
	return start({ faxes: FAXES, clock: () => nowMs, ...options });
}

async function get(server: TestServer, path: string, headers: Record<string, string> = {}, method = "GET") {
	const response = await server.request(path, { method, headers });
	return { status: response.status, headers: response.headers, body: await response.text() };
}

async function etagOf(server: TestServer, path: string): Promise<string> {
	const answer = await get(server, path);
	expect(answer.status).toBe(200);
	return answer.headers.get("etag") ?? "";
}

describe("conditional requests", () => {
	test("If-None-Match with the current ETag answers 304: no body, the contract headers, the ETag and Vary", async () => {
		const server = await serve();
		for (const path of [ALL, "/api/faxes", "/api/faxes/fax_new1"]) {
			const etag = await etagOf(server, path);
			expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
			const strong = etag.slice(2);
			for (const [method, condition] of [
				["GET", etag],
				["GET", strong],
				["GET", `"other", ${etag}`],
				["GET", "*"],
				["HEAD", etag],
			] as const) {
				for (const coding of ["identity", "gzip, br"]) {
					const answer = await get(
						server,
						path,
						{ "if-none-match": condition, "accept-encoding": coding },
						method,
					);
					expect([path, method, condition, answer.status, answer.body]).toEqual([
						path,
						method,
						condition,
						304,
						"",
					]);
					const fields = Object.fromEntries(answer.headers);
					expect(fields).toMatchObject({
						"cache-control": "no-store, private",
						"access-control-allow-origin": "*",
						"access-control-expose-headers": EXPOSED,
						"x-ratelimit-limit": "1000000",
						etag,
						vary: "Accept-Encoding",
					});
					expect(fields["x-ratelimit-remaining"]).toMatch(/^\d+$/);
					expect(fields["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
					for (const absent of ["content-type", "content-encoding", "content-length"])
						expect([absent, fields[absent]]).toEqual([absent, undefined]);
				}
			}
			for (const other of ['W/"AAAAAAAAAAAAAAAAAAAAAA"', etag.replace(/"$/, 'x"'), ""]) {
				const answer = await get(server, path, { "if-none-match": other });
				expect([other, answer.status, answer.headers.get("etag")]).toEqual([other, 200, etag]);
			}
		}
	});

	test("a 304 is counted like every answer, and a used-up window answers 429 instead", async () => {
		const server = await serve({ env: { RATE_LIMIT_PER_MINUTE: "3" } });
		const first = await get(server, "/api/faxes");
		const etag = first.headers.get("etag") ?? "";
		const remaining: string[] = [first.headers.get("x-ratelimit-remaining") ?? ""];
		for (let i = 0; i < 2; i++) {
			const answer = await get(server, "/api/faxes", { "if-none-match": etag });
			expect(answer.status).toBe(304);
			remaining.push(answer.headers.get("x-ratelimit-remaining") ?? "");
		}
		expect(remaining).toEqual(["2", "1", "0"]);
		const refused = await get(server, "/api/faxes", { "if-none-match": etag });
		expect([refused.status, refused.headers.get("etag"), refused.body]).toEqual([
			429,
			null,
			'{"message":"Too Many Attempts."}',
		]);
	});

	test("a new fax, a removal and an expiry change the ETag; a gone fax answers 410 whatever the client has", async () => {
		const server = await serve();
		const store = await openServerStore(server);
		try {
			const seen = new Set<string>();
			const fresh = async (path: string) => {
				const etag = await etagOf(server, path);
				expect([path, seen.has(etag)]).toEqual([path, false]);
				seen.add(etag);
				return etag;
			};
			const initial = await fresh(ALL);
			const single = await fresh("/api/faxes/fax_new2");
			const old = await fresh("/api/faxes/fax_old1");

			await store.insert({
				slug: "fax_new3",
				source: "email",
				sender: null,
				received_at: NOW_SECONDS - 10,
				page_count: 2,
				file_size: 2000,
			});
			const afterInsert = await fresh(ALL);
			expect((await get(server, ALL, { "if-none-match": initial })).status).toBe(200);
			expect(await etagOf(server, "/api/faxes/fax_new2")).toBe(single);

			await store.remove("fax_new2", NOW_SECONDS);
			await fresh(ALL);
			expect((await get(server, ALL, { "if-none-match": afterInsert })).status).toBe(200);
			const removed = await get(server, "/api/faxes/fax_new2", { "if-none-match": single });
			expect([removed.status, removed.headers.get("etag")]).toEqual([410, null]);

			const beforeExpiry = await etagOf(server, ALL);
			nowMs += (EXPIRING_IN_SECONDS + 5) * 1000;
			const afterExpiry = await fresh(ALL);
			expect(afterExpiry).not.toBe(beforeExpiry);
			const expired = await get(server, "/api/faxes/fax_old1", { "if-none-match": old });
			expect([expired.status, expired.headers.get("etag")]).toEqual([410, null]);
		} finally {
			await store.close();
		}
	});

	test("two instances on one database give the same answer the same ETag, so either answers 304", async () => {
		const one = await serve();
		const two = await serve({ faxes: [], env: sameDatabase(one) });
		for (const path of [ALL, "/api/faxes", "/api/faxes/fax_new1", "/api/faxes?from=%2B15551234567&limit=1"]) {
			const [first, second] = [await etagOf(one, path), await etagOf(two, path)];
			expect([path, second]).toEqual([path, first]);
			expect((await get(two, path, { "if-none-match": first })).status).toBe(304);
			expect((await get(one, path, { "if-none-match": second })).status).toBe(304);
		}
	});
});
