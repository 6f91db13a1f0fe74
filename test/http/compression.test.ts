import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { ago, faxRecord } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// Compression by Accept-Encoding: the decoded body is byte for byte the
// identity body, and the fields besides the encoding's own are the same.

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({
		faxes: Array.from({ length: 100 }, (_, i) =>
			faxRecord({ slug: `fax_z${i}`, received_at: ago(60 + i * 30), sender: `+1 555 000 ${1000 + i}` }),
		),
	});
});
afterAll(() => server.stop());

const POLL = `/api/faxes?since=${ago(3600)}&limit=100`;
const COMPRESSED_PATHS = [POLL, "/api/faxes", "/openapi.json", "/docs/API.md", "/docs/redoc.standalone.js"];
/** Fields that differ between two answers whatever their encoding. */
const PER_ANSWER = new Set(["date", "x-request-id", "x-ratelimit-remaining", "ratelimit"]);

interface Raw {
	status: number;
	headers: [string, string][];
	body: Uint8Array;
}

async function raw(path: string, acceptEncoding: string | null, method = "GET"): Promise<Raw> {
	const headers: Record<string, string> = { "accept-encoding": acceptEncoding ?? "" };
	const response = await server.request(path, { method, headers, decompress: false });
	return {
		status: response.status,
		headers: [...response.headers],
		body: new Uint8Array(await response.arrayBuffer()),
	};
}

const field = (answer: Raw, name: string) => answer.headers.find(([key]) => key === name)?.[1] ?? null;

function decoded(answer: Raw): Buffer {
	const coding = field(answer, "content-encoding");
	if (coding === "br") return brotliDecompressSync(answer.body);
	if (coding === "gzip") return gunzipSync(answer.body);
	expect(coding).toBeNull();
	return Buffer.from(answer.body);
}

/** The fields that must be equal between two encodings of one answer. */
const contractFields = (answer: Raw) =>
	answer.headers.filter(
		([name]) => !PER_ANSWER.has(name) && name !== "content-encoding" && name !== "content-length",
	);

describe("compression", () => {
	test("every encoding decodes to the identity bytes, with the same fields, on the API, /openapi.json and /docs", async () => {
		for (const path of COMPRESSED_PATHS) {
			const identity = await raw(path, null);
			expect([path, identity.status, field(identity, "content-encoding")]).toEqual([path, 200, null]);
			expect(field(identity, "vary")).toBe("Accept-Encoding");
			for (const [accept, coding] of [
				["gzip", "gzip"],
				["br", "br"],
				["gzip, deflate, br, zstd", "br"],
				["br;q=0.2, gzip;q=0.8", "gzip"],
				["*", "br"],
				["identity", null],
				["gzip;q=0, br;q=0", null],
			] as const) {
				const answer = await raw(path, accept);
				expect([path, accept, field(answer, "content-encoding")]).toEqual([path, accept, coding]);
				expect(decoded(answer).equals(Buffer.from(identity.body))).toBe(true);
				expect(Number(field(answer, "content-length"))).toBe(answer.body.byteLength);
				expect(contractFields(answer)).toEqual(contractFields(identity));
				if (coding !== null) expect(answer.body.byteLength).toBeLessThan(identity.body.byteLength / 2);
			}
		}
	});

	test("the 100-fax poll goes from about 31 KB to under 3 KB", async () => {
		const identity = await raw(POLL, null);
		expect(identity.body.byteLength).toBeGreaterThan(30_000);
		expect((await raw(POLL, "gzip")).body.byteLength).toBeLessThan(3_000);
		expect((await raw(POLL, "br")).body.byteLength).toBeLessThan(3_000);
		expect(JSON.parse(decoded(await raw(POLL, "br")).toString())).toHaveLength(100);
	});

	test("a HEAD announces the compressed length and sends no body", async () => {
		const get = await raw(POLL, "br");
		const head = await raw(POLL, "br", "HEAD");
		expect(head.body.byteLength).toBe(0);
		expect(field(head, "content-encoding")).toBe("br");
		expect(field(head, "content-length")).toBe(String(get.body.byteLength));
		expect(field(head, "etag")).toBe(field(get, "etag"));
	});

	test("answers under 1 KB (one fax, the docs page) and errors stay uncompressed", async () => {
		for (const path of [
			"/api/faxes/fax_z0",
			"/api/faxes?limit=1",
			"/api/faxes/fax_none",
			"/api/faxes?limit=0",
		]) {
			const answer = await raw(path, "gzip, br");
			expect([path, field(answer, "content-encoding")]).toEqual([path, null]);
		}
		expect(field(await raw("/api/faxes/fax_z0", "br"), "vary")).toBe("Accept-Encoding");
	});
});
