import { afterAll, beforeAll, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { ago, faxRecord, fixedClock, NOW_MS } from "../../testkit/fixtures.ts";
import { captureLog } from "../../testkit/log.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// A received file's validators, conditions and byte ranges (RFC 9110 sections
// 8.8, 13.1 and 14), as lib/http/file-answer.ts answers them.

const SLUG = "fax_Ranges01";
const PATH = `/cdn/faxes/${SLUG}.pdf`;
const PDF = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
// The validators are the fax's time and the file's size, as every host reads
// them from the database; the time the file was written on this disk is not.
const RECEIVED_MS = NOW_MS - 60_000;
const httpDate = (ms: number) => new Date(ms).toUTCString();
const LAST_MODIFIED = httpDate(RECEIVED_MS);
const ETAG = `"${RECEIVED_MS.toString(16)}-3e8"`;
const WRITTEN = new Date("2026-03-04T05:06:07Z");

const log = captureLog();
let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({
		faxes: [faxRecord({ slug: SLUG, received_at: ago(60) })],
		clock: fixedClock,
		logger: log.logger,
	});
	const file = join(server.storageDir, "faxes", `${SLUG}.pdf`);
	await Bun.write(file, PDF);
	utimesSync(file, WRITTEN, WRITTEN);
});
afterAll(() => server.stop());

/** Status, the range fields and the body's bytes of a request for the file. */
async function fetchFile(headers: Record<string, string>, method = "GET") {
	const response = await server.request(PATH, { method, headers });
	return {
		status: response.status,
		contentRange: response.headers.get("content-range"),
		length: response.headers.get("content-length"),
		body: new Uint8Array(await response.arrayBuffer()),
	};
}

const whole = { status: 200, contentRange: null, length: "1000", body: PDF };
const part = (start: number, end: number) => ({
	status: 206,
	contentRange: `bytes ${start}-${end}/1000`,
	length: String(end - start + 1),
	body: PDF.subarray(start, end + 1),
});
const unsatisfiable = { status: 416, contentRange: "bytes */1000", length: "0", body: new Uint8Array() };
const notModified = { status: 304, contentRange: null, length: null, body: new Uint8Array() };

test("a 200 carries the validators and Accept-Ranges, and no Content-Range", async () => {
	const response = await server.request(PATH);
	expect(response.status).toBe(200);
	expect(response.headers.get("content-range")).toBeNull();
	expect(response.headers.get("accept-ranges")).toBe("bytes");
	expect(response.headers.get("etag")).toBe(ETAG);
	expect(response.headers.get("last-modified")).toBe(LAST_MODIFIED);
	expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
});

test("one range is a 206 of exactly its bytes; a range past the end a 416; a field not understood is ignored", async () => {
	expect(await fetchFile({ range: "bytes=10-19" })).toEqual(part(10, 19));
	expect(await fetchFile({ range: "bytes=990-5000" })).toEqual(part(990, 999));
	expect(await fetchFile({ range: "bytes=-10" })).toEqual(part(990, 999));
	expect(await fetchFile({ range: "bytes=-5000" })).toEqual(part(0, 999));
	expect(await fetchFile({ range: "BYTES= 0-0" })).toEqual(part(0, 0));
	expect(await fetchFile({ range: "bytes=1000-" })).toEqual(unsatisfiable);
	expect(await fetchFile({ range: "bytes=-0" })).toEqual(unsatisfiable);
	for (const ignored of ["bytes=5-2", "bytes=x-1", "bytes=-", "pages=1-2", "bytes=1-2;x"]) {
		expect({ ignored, answer: await fetchFile({ range: ignored }) }).toEqual({ ignored, answer: whole });
	}
});

test("more than one range gets the whole file", async () => {
	expect(await fetchFile({ range: "bytes=0-1,5-6" })).toEqual(whole);
	expect(await fetchFile({ range: "bytes=0-1, 1000-" })).toEqual(whole);
});

test("If-Range: the ranges of this very file only, named by its ETag (strongly) or exactly its date", async () => {
	const range = { range: "bytes=10-19" };
	expect(await fetchFile({ ...range, "if-range": ETAG })).toEqual(part(10, 19));
	expect(await fetchFile({ ...range, "if-range": LAST_MODIFIED })).toEqual(part(10, 19));
	for (const other of [`W/${ETAG}`, '"another"', httpDate(RECEIVED_MS + 1000), "yesterday"]) {
		expect({ other, answer: await fetchFile({ ...range, "if-range": other }) }).toEqual({
			other,
			answer: whole,
		});
	}
});

test("If-None-Match: * or a tag of the file is a 304; If-Modified-Since counts only without it", async () => {
	for (const tag of ["*", ETAG, `W/${ETAG}`, `"x", ${ETAG}`]) {
		expect({ tag, answer: await fetchFile({ "if-none-match": tag }) }).toEqual({ tag, answer: notModified });
	}
	expect(await fetchFile({ "if-none-match": '"x"' })).toEqual(whole);
	expect(await fetchFile({ "if-modified-since": LAST_MODIFIED })).toEqual(notModified);
	expect(await fetchFile({ "if-modified-since": httpDate(RECEIVED_MS - 1000) })).toEqual(whole);
	expect(await fetchFile({ "if-none-match": '"x"', "if-modified-since": LAST_MODIFIED })).toEqual(whole);
	expect(await fetchFile({ "if-none-match": "*", range: "bytes=0-1" })).toEqual(notModified);
});

test("a HEAD reads no Range: it describes the whole file", async () => {
	expect(await fetchFile({ range: "bytes=10-19" }, "HEAD")).toEqual({ ...whole, body: new Uint8Array() });
});

test("the access log gives the status sent: 206, 416, 304", async () => {
	log.lines.length = 0;
	const requests: Record<string, string>[] = [
		{ range: "bytes=0-0" },
		{ range: "bytes=2000-" },
		{ "if-none-match": "*" },
		{},
	];
	for (const headers of requests) {
		await (await server.request(PATH, { headers })).arrayBuffer();
	}
	const logged = log.lines.filter((line) => line.msg === "request").map((line) => line.status);
	expect(logged).toEqual([206, 416, 304, 200]);
});
