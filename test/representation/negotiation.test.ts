import { expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { noneMatchHits, preferredCoding, Representation } from "../../lib/representation/index.ts";

test("Accept-Encoding: the highest q-value wins, br before gzip before identity on a tie", () => {
	const cases: [string | null, string | null][] = [
		[null, null],
		["", null],
		["identity", null],
		["deflate, zstd", null],
		["gzip", "gzip"],
		["x-gzip", "gzip"],
		["GZIP", "gzip"],
		["br", "br"],
		["gzip, deflate, br, zstd", "br"],
		["gzip, br;q=0.9", "gzip"],
		["br;q=0.5, gzip;q=0.5", "br"],
		["br;q=0.5, gzip;q=0.5, identity", null],
		["br;q=0, gzip", "gzip"],
		["br;q=0, gzip;q=0", null],
		["gzip;q=0.5", "gzip"],
		["gzip;q=0.5, identity", null],
		["gzip;q=0.5, identity;q=0.4", "gzip"],
		["identity;q=0, gzip;q=0.001", "gzip"],
		["*", "br"],
		["*;q=0", null],
		["*;q=0, gzip", "gzip"],
		["br;q=0, *;q=0.2", "gzip"],
		["br ; q=1.000 , gzip", "br"],
		// A malformed weight is no weight: it never wins.
		["br;q=high, gzip", "gzip"],
		["br;q=1.5, gzip;q=0.1", "gzip"],
	];
	for (const [header, coding] of cases) expect([header, preferredCoding(header)]).toEqual([header, coding]);
});

test("If-None-Match: weak comparison, any of a list, or *", () => {
	const etag = 'W/"abc"';
	expect(noneMatchHits(null, etag)).toBe(false);
	expect(noneMatchHits('W/"abc"', etag)).toBe(true);
	expect(noneMatchHits('"abc"', etag)).toBe(true);
	expect(noneMatchHits('"x", W/"abc" ,"y"', etag)).toBe(true);
	expect(noneMatchHits("*", etag)).toBe(true);
	expect(noneMatchHits(" * ", etag)).toBe(true);
	expect(noneMatchHits('W/"abcd"', etag)).toBe(false);
	expect(noneMatchHits("abc", etag)).toBe(false);
	expect(noneMatchHits("", etag)).toBe(false);
});

test("a representation's ETag comes from its text alone, and each coding is made once", () => {
	const text = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ slug: `fax_${i}`, page_count: i })));
	const one = new Representation(text);
	const other = new Representation(`${text}`);
	expect(one.etag).toBe(other.etag);
	expect(one.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
	expect(new Representation(`${text} `).etag).not.toBe(one.etag);
	const br = one.encoded("br");
	expect(br).not.toBeNull();
	expect(one.encoded("br")).toBe(br as Uint8Array);
	expect(one.encoded("gzip")).toBe(one.encoded("gzip") as Uint8Array);
	expect(gunzipSync(one.encoded("gzip") as Uint8Array).toString()).toBe(text);
	expect(new Representation('{"message":""}').encoded("gzip")).toBeNull();
});
