import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import { DATABASE_CHUNK_BYTES } from "../../lib/storage/index.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// A host without a fax's files on its disk (a standby's, one that never
// ingested, one restored without `fax restore-files`) serves them from the
// database, where ingest keeps the bytes beside the row: the same bytes,
// ranges and validators as the host that has them on disk. With
// `npm run test:http:postgres` the database is PostgreSQL.

const SLUG = "fax_FromDb0001";
const PATH = `/cdn/faxes/${SLUG}.pdf`;
const RECEIVED = Math.floor(Date.now() / 1000) - 120;
// Over two chunks and not a whole number of them, so reads cross chunk ends.
const PDF = Uint8Array.from({ length: 2 * DATABASE_CHUNK_BYTES + 4321 }, (_, i) => (i * 7 + (i >> 11)) % 256);
const THUMBNAIL = Uint8Array.from({ length: 3000 }, (_, i) => i % 253);
const ETAG = `"${(RECEIVED * 1000).toString(16)}-${PDF.length.toString(16)}"`;
const LAST_MODIFIED = new Date(RECEIVED * 1000).toUTCString();

let server: TestServer;
let store: FaxStore;
beforeAll(async () => {
	server = await startTestServer({ env: { SEED_DEMO: "0" } });
	const { DATABASE_PATH = "", DATABASE_URL = null } = server.env;
	store = new FaxStore(
		await openEngine({ databasePath: DATABASE_PATH, databaseUrl: DATABASE_URL, busyTimeoutMs: 5000 }),
	);
	const fax = { slug: SLUG, source: "phone" as const, sender: null, received_at: RECEIVED, page_count: 2 };
	await store.insert({ ...fax, file_size: PDF.length }, { files: { pdf: PDF, thumbnail: THUMBNAIL } });
});
afterAll(async () => {
	await store?.close();
	await server?.stop();
});

async function fetchFile(headers: Record<string, string> = {}, method = "GET", path = PATH) {
	const response = await server.request(path, { method, headers });
	return {
		status: response.status,
		length: response.headers.get("content-length"),
		range: response.headers.get("content-range"),
		etag: response.headers.get("etag"),
		lastModified: response.headers.get("last-modified"),
		body: new Uint8Array(await response.arrayBuffer()),
	};
}

const validators = { etag: ETAG, lastModified: LAST_MODIFIED };
// Past one chunk the bytes are a stream, which Bun sends chunked, dropping the
// Content-Length it was given (oven-sh/bun#10507, docs/decisions.md
// "Workarounds"): when this fails, Bun sends it, and the workaround can go.
const lengthOf = (bytes: number) => (bytes > DATABASE_CHUNK_BYTES ? null : String(bytes));
const part = (start: number, end: number) => ({
	status: 206,
	length: lengthOf(end - start + 1),
	range: `bytes ${start}-${end}/${PDF.length}`,
	...validators,
	body: PDF.subarray(start, end + 1),
});

test("a file only the database holds is served whole, byte for byte, with the fax's validators and the CDN's fields", async () => {
	const response = await server.request(PATH);
	expect(response.status).toBe(200);
	expect(response.headers.get("content-type")).toBe("application/pdf");
	expect(response.headers.get("content-disposition")).toBe(`inline; filename="${SLUG}.pdf"`);
	expect(response.headers.get("content-security-policy")).not.toBeNull();
	expect(response.headers.get("accept-ranges")).toBe("bytes");
	expect(response.headers.get("transfer-encoding")).toBe("chunked");
	expect(await fetchFile()).toEqual({
		status: 200,
		length: null,
		range: null,
		...validators,
		body: PDF,
	});
	const thumbnail = await fetchFile({}, "GET", `/cdn/faxes/${SLUG}-thumb.jpg`);
	expect(thumbnail.body).toEqual(THUMBNAIL);
	expect(thumbnail.etag).toBe(`"${(RECEIVED * 1000).toString(16)}-${THUMBNAIL.length.toString(16)}"`);
});

test("its ranges are read from the database: inside a chunk, across a chunk's end, the last bytes; past the end a 416", async () => {
	expect(await fetchFile({ range: "bytes=10-19" })).toEqual(part(10, 19));
	const edge = DATABASE_CHUNK_BYTES;
	expect(await fetchFile({ range: `bytes=${edge - 5}-${edge + 5}` })).toEqual(part(edge - 5, edge + 5));
	expect(await fetchFile({ range: "bytes=-10" })).toEqual(part(PDF.length - 10, PDF.length - 1));
	expect(await fetchFile({ range: `bytes=${edge}-` })).toEqual(part(edge, PDF.length - 1));
	const past = await fetchFile({ range: `bytes=${PDF.length}-` });
	expect([past.status, past.range]).toEqual([416, `bytes */${PDF.length}`]);
	expect(await fetchFile({ "if-none-match": ETAG })).toMatchObject({ status: 304, body: new Uint8Array() });
	expect(await fetchFile({}, "HEAD")).toEqual({
		status: 200,
		length: String(PDF.length),
		range: null,
		...validators,
		body: new Uint8Array(),
	});
});

test("the same file on this host's disk answers with the same validators", async () => {
	const file = join(server.storageDir, "faxes", `${SLUG}.pdf`);
	await Bun.write(file, PDF);
	try {
		expect(await fetchFile()).toEqual({
			status: 200,
			length: String(PDF.length),
			range: null,
			...validators,
			body: PDF,
		});
	} finally {
		rmSync(file);
	}
});

test("a removed fax's files are not served from the database", async () => {
	expect(await store.remove(SLUG, Math.floor(Date.now() / 1000))).toBe(true);
	expect((await fetchFile()).status).toBe(404);
});
