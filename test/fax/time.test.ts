import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { OffsetDateTime } from "../../lib/fax/offset-date-time.ts";
import { formatUtcSeconds, parseOffsetDateTime } from "../../lib/fax/time.ts";

// 2026-11-21T10:00:00Z
const NOV_21_10H = 1_795_255_200;

describe("parseOffsetDateTime", () => {
	test.each([
		["2026-11-21T10:00:00Z", NOV_21_10H],
		["2026-11-21T12:00:00+02:00", NOV_21_10H],
		["2026-11-21T12:00:00+0200", NOV_21_10H],
		["2026-11-21T05:30:00-04:30", NOV_21_10H],
		["2026-11-21T05:30:00-0430", NOV_21_10H],
		["2026-11-21T10:00:00+00:00", NOV_21_10H],
		["2026-11-21T10:00:00-00:00", NOV_21_10H],
		["2026-11-21T10:00:00+0000", NOV_21_10H],
		["2026-11-21T10:00:00+23:59", NOV_21_10H - (23 * 3600 + 59 * 60)],
		["2026-11-21T10:00:00-23:59", NOV_21_10H + (23 * 3600 + 59 * 60)],
		["2026-11-21T10:00:00+2359", NOV_21_10H - (23 * 3600 + 59 * 60)],
		["2026-11-22T00:00:00+14:00", NOV_21_10H],
		["1970-01-01T00:00:00Z", 0],
		["2026-02-28T23:59:59Z", 1_772_323_199],
	])("%s is %d", (text, seconds) => {
		expect(parseOffsetDateTime(text)).toBe(seconds);
	});

	test.each([
		["2026-11-21T10:00:00.0Z", NOV_21_10H],
		["2026-11-21T10:00:00.5Z", NOV_21_10H],
		["2026-11-21T10:00:00.999999999Z", NOV_21_10H],
		["2026-11-21T12:00:00.75+02:00", NOV_21_10H],
		["2026-11-21T12:00:00.75+0200", NOV_21_10H],
		["1969-12-31T23:59:59.5Z", -1],
	])("the fraction of %s is dropped: %d, the whole second it falls in", (text, seconds) => {
		expect(parseOffsetDateTime(text)).toBe(seconds);
	});

	test.each([
		["2024-02-29T00:00:00Z", 1_709_164_800],
		["2000-02-29T12:00:00Z", 951_825_600],
		["0000-02-29T00:00:00Z", -62_162_121_600],
	])("leap day %s is a date", (text, seconds) => {
		expect(parseOffsetDateTime(text)).toBe(seconds);
	});

	test.each([
		["0000-01-01T00:00:00Z", -62_167_219_200],
		["9999-12-31T23:59:59Z", 253_402_300_799],
		["9999-12-31T23:59:59-23:59", 253_402_300_799 + 23 * 3600 + 59 * 60],
		["0000-01-01T00:00:00+23:59", -62_167_219_200 - (23 * 3600 + 59 * 60)],
	])("four-digit year bounds: %s is %d", (text, seconds) => {
		expect(parseOffsetDateTime(text)).toBe(seconds);
	});

	test.each([
		"2026-02-30T10:00:00Z",
		"2026-02-29T10:00:00Z",
		"2100-02-29T10:00:00Z",
		"1900-02-29T10:00:00Z",
		"2026-04-31T10:00:00Z",
		"2026-06-31T10:00:00Z",
		"2026-09-31T10:00:00Z",
		"2026-11-31T10:00:00Z",
		"2026-12-32T10:00:00Z",
		"2026-00-10T10:00:00Z",
		"2026-13-01T10:00:00Z",
		"2026-11-00T10:00:00Z",
		"2026-11-21T24:00:00Z",
		"2026-11-21T25:00:00Z",
		"2026-11-21T10:60:00Z",
		"2026-11-21T10:00:60Z",
		"2016-12-31T23:59:60Z",
	])("calendar-invalid %s is null", (text) => {
		expect(parseOffsetDateTime(text)).toBeNull();
	});

	test.each([
		"2026-11-21T10:00:00+24:00",
		"2026-11-21T10:00:00-24:00",
		"2026-11-21T10:00:00+00:60",
		"2026-11-21T10:00:00+2400",
		"2026-11-21T10:00:00+02",
		"2026-11-21T10:00:00+2",
		"2026-11-21T10:00:00+02:0",
		"2026-11-21T10:00:00+020",
		"2026-11-21T10:00:00+02:000",
		"2026-11-21T10:00:00 02:00",
		"2026-11-21T10:00:00Z+02:00",
		"2026-11-21T10:00:00ZZ",
	])("offset of %s is invalid", (text) => {
		expect(parseOffsetDateTime(text)).toBeNull();
	});

	test.each([
		"",
		"2026-11-21",
		"2026-11-21Z",
		"2026-11-21T10:00:00",
		"2026-11-21T10:00Z",
		"2026-11-21T10Z",
		"2026-11-21t10:00:00Z",
		"2026-11-21T10:00:00z",
		"2026-11-21 10:00:00Z",
		"20261121T100000Z",
		"2026-11-21T10:00:00.Z",
		"2026-11-21T10:00:00,5Z",
		" 2026-11-21T10:00:00Z",
		"2026-11-21T10:00:00Z ",
		"2026-11-21T10:00:00Z\n",
		"26-11-21T10:00:00Z",
		"12026-11-21T10:00:00Z",
		"-2026-11-21T10:00:00Z",
		"+2026-11-21T10:00:00Z",
		"2026-1-21T10:00:00Z",
		"2026-11-21T1:00:00Z",
		"２０２６-11-21T10:00:00Z",
		"1795255200",
		"yesterday",
		"Sat, 21 Nov 2026 10:00:00 GMT",
	])("form %p is invalid", (text) => {
		expect(parseOffsetDateTime(text)).toBeNull();
	});
});

describe("formatUtcSeconds", () => {
	test.each([
		[NOV_21_10H, "2026-11-21T10:00:00Z"],
		[0, "1970-01-01T00:00:00Z"],
		[-1, "1969-12-31T23:59:59Z"],
		[951_825_600, "2000-02-29T12:00:00Z"],
		[-62_167_219_200, "0000-01-01T00:00:00Z"],
		[253_402_300_799, "9999-12-31T23:59:59Z"],
	])("%d is %s", (seconds, text) => {
		expect(formatUtcSeconds(seconds)).toBe(text);
	});

	test.each([
		[1.999, "1970-01-01T00:00:01Z"],
		[-0.5, "1969-12-31T23:59:59Z"],
		[NOV_21_10H + 0.25, "2026-11-21T10:00:00Z"],
	])("a fraction of a second (%d) is dropped: %s", (seconds, text) => {
		expect(formatUtcSeconds(seconds)).toBe(text);
	});

	test("formats what it parses back to the same second, in UTC", () => {
		expect(formatUtcSeconds(parseOffsetDateTime("2026-11-21T12:00:00+02:00") ?? Number.NaN)).toBe(
			"2026-11-21T10:00:00Z",
		);
		expect(formatUtcSeconds(parseOffsetDateTime("2026-11-21T00:30:00+01:00") ?? Number.NaN)).toBe(
			"2026-11-20T23:30:00Z",
		);
	});
});

describe("OffsetDateTime schema", () => {
	const schema = OffsetDateTime({ errorMessage: "bad time", description: "a time" });

	test("keeps the options of its string schema", () => {
		expect(schema.type).toBe("string");
		expect(schema.errorMessage).toBe("bad time");
		expect(schema.description).toBe("a time");
	});

	test("decodes a date-time with an offset to Unix seconds", () => {
		expect(Value.Decode(schema, "2026-11-21T12:00:00.9+02:00")).toBe(NOV_21_10H);
	});

	test("says what it takes to readers of the schema: a date-time with an offset, by its pattern alone", () => {
		// RFC 3339's date-time admits a second 60 and refuses +0200, the other way round from the service.
		expect(schema.format).toBeUndefined();
		expect(new RegExp(String(schema.pattern)).test("2026-11-21T12:00:00.9+02:00")).toBe(true);
		expect(new RegExp(String(schema.pattern)).test("2026-11-21T12:00:00.9+0200")).toBe(true);
		expect(new RegExp(String(schema.pattern)).test("2026-11-21T12:00:00")).toBe(false);
		expect(new RegExp(String(schema.pattern)).test("2016-12-31T23:59:60Z")).toBe(false);
	});

	test.each(["2026-11-21", "2026-02-30T10:00:00Z", "2026-11-21T10:00:00 02:00"])(
		"%p is a string but no date-time: the check refuses it, and decoding throws",
		(text) => {
			expect(Value.Check(schema, text)).toBe(false);
			expect(() => Value.Decode(schema, text)).toThrow();
		},
	);

	test("a value that is no string fails the check", () => {
		expect(Value.Check(schema, NOV_21_10H)).toBe(false);
	});

	test("encodes Unix seconds as UTC text", () => {
		expect(Value.Encode(schema, NOV_21_10H)).toBe("2026-11-21T10:00:00Z");
	});
});
