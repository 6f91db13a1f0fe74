import fc from "fast-check";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";
import { CATALOGUE, SENDERS } from "./catalogue.ts";

/**
 * Query strings as clients and attackers write them: the three parameters in
 * valid and invalid forms, repeated and bracketed keys, unknown keys by the
 * thousand, and every way of percent-encoding them, invalid UTF-8 included.
 */

const pad = (value: number, width: number) => String(Math.abs(value)).padStart(width, "0");

/** An offset in minutes, written in one of the accepted or refused ways. */
const offsetText = fc.oneof(
	{ weight: 4, arbitrary: fc.constant({ minutes: 0, text: "Z" }) },
	{
		weight: 6,
		arbitrary: fc
			.tuple(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), fc.boolean())
			.map(([minutes, colon]) => ({
				minutes,
				text: `${minutes < 0 ? "-" : "+"}${pad(Math.trunc(Math.abs(minutes) / 60), 2)}${colon ? ":" : ""}${pad(Math.abs(minutes) % 60, 2)}`,
			})),
	},
);

/** A valid date-time for an instant near a catalogue fax, in any offset, with or without a fraction. */
const nearCatalogue = fc
	.tuple(
		fc.constantFrom(...CATALOGUE.map((fax) => fax.receivedAt), NOW_SECONDS, NOW_SECONDS - 86_400),
		fc.integer({ min: -2, max: 2 }),
		offsetText,
		fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }),
	)
	.map(([at, delta, offset, fraction]) => {
		const local = new Date((at + delta + offset.minutes * 60) * 1000).toISOString().slice(0, 19);
		return `${local}${fraction === undefined ? "" : `.${fraction}`}${offset.text}`;
	});

/** Date-times from parts anywhere in (and just past) the four-digit years, valid or not. */
const fromParts = fc
	.record({
		year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 1969, 1970, 2000, 2026, 9999)),
		month: fc.integer({ min: 0, max: 13 }),
		day: fc.integer({ min: 0, max: 32 }),
		hour: fc.integer({ min: 0, max: 25 }),
		minute: fc.integer({ min: 0, max: 60 }),
		second: fc.integer({ min: 0, max: 61 }),
		offset: offsetText,
	})
	.map(
		(p) =>
			`${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}T${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}${p.offset.text}`,
	);

const EXTREME_TIMES = [
	"9999-12-31T23:59:59+23:59",
	"9999-12-31T23:59:59-23:59",
	"0000-01-01T00:00:00+23:59",
	"0000-01-01T00:00:00-23:59",
	"-000001-01-01T00:00:00Z",
	"+010000-01-01T00:00:00Z",
	"275760-09-13T00:00:00Z",
	"2026-11-22T12:00:00+24:00",
	"2026-11-22T12:00:00+23:60",
	"2026-11-22T12:00:00+23",
	"2026-11-22T12:00:00 05:00",
	"2026-11-22T12:00:00",
	"2026-11-22",
	"2026-11-22t12:00:00z",
	"2026-11-22 12:00:00Z",
	"2026-11-22T12:00:60Z",
	"2026-11-22T24:00:00Z",
	"2026-02-29T00:00:00Z",
	"2024-02-29T00:00:00Z",
	"2000-02-29T00:00:00Z",
	"1900-02-29T00:00:00Z",
	"2026-11-22T12:00:00.Z",
	"2026-11-22T12:00:00,5Z",
	"2026-11-22T12:00:00.999999999999999999999Z",
	"20261122T120000Z",
	"2026-W47-7T12:00:00Z",
	"１２３４-01-01T00:00:00Z",
	"2026-11-22T12:00:00Z ",
	"\u00002026-11-22T12:00:00Z",
];

/** `since` values as clients and attackers write them, valid and not. */
export const since = fc.oneof(
	{ weight: 5, arbitrary: nearCatalogue },
	{ weight: 3, arbitrary: fromParts },
	{ weight: 2, arbitrary: fc.constantFrom(...EXTREME_TIMES) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

const limit = fc.oneof(
	{ weight: 5, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) },
	{
		weight: 2,
		arbitrary: fc
			.tuple(fc.nat(40), fc.integer({ min: 0, max: 120 }))
			.map(([zeros, n]) => "0".repeat(zeros) + n),
	},
	{
		weight: 2,
		arbitrary: fc.constantFrom(
			"0",
			"101",
			"-1",
			"+5",
			"1.0",
			"1e2",
			" 5",
			"5 ",
			"0x10",
			"５",
			"٥",
			"99999999999999999999999999",
			"NaN",
			"Infinity",
			"100.",
			"1_0",
		),
	},
	{ weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

/** A sender the catalogue holds, as a client might type it: case, white space, `+`, full-width digits. */
const senderSpelling = fc
	.tuple(
		fc.constantFrom(...SENDERS.filter((sender) => sender.key !== null)),
		fc.boolean(),
		fc.boolean(),
		fc.boolean(),
		fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 4 }),
		fc.constantFrom(" ", "\t", "\u00a0", "\u3000", "\u200b"),
	)
	.map(([sender, upper, plus, wide, spaces, space]) => {
		let text = sender.key as string;
		if (upper) text = text.toUpperCase();
		if (text.includes("@")) return `  ${text}\t`;
		if (plus) text = `+${text}`;
		if (wide) text = text.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit)));
		for (const at of spaces) text = text.slice(0, at) + space + text.slice(at);
		return text;
	});

// Near the 255-character limit: ASCII, emoji with modifiers, letters with combining accents.
const longSender = fc
	.tuple(
		fc.integer({ min: 250, max: 260 }),
		fc.constantFrom("a", "é", "e\u0301", "👍🏽", "👨‍👩‍👧", "中", "\ud83d\ude00"),
	)
	.map(([count, character]) => character.repeat(count));

const from = fc.oneof(
	{ weight: 5, arbitrary: senderSpelling },
	{
		weight: 2,
		arbitrary: fc.constantFrom(
			"Unknown",
			"unknown",
			"UNKNOWN",
			"ｕｎｋｎｏｗｎ",
			"Unknown ",
			"un known",
			"\u200bUnknown",
			"+Unknown",
		),
	},
	{ weight: 2, arbitrary: longSender },
	{ weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
);

const KNOWN = ["limit", "since", "from"] as const;

const key = fc.oneof(
	{ weight: 10, arbitrary: fc.constantFrom(...KNOWN) },
	{
		weight: 3,
		arbitrary: fc
			.tuple(
				fc.constantFrom(...KNOWN),
				fc.constantFrom("[]", "[0]", "[x]", "[", "[]]", "[][]", "]", "%5B%5D"),
			)
			.map(([name, suffix]) => name + suffix),
	},
	{
		weight: 1,
		arbitrary: fc.constantFrom("%66rom", "fr%6Fm", "li%6Dit", "FROM", "Limit", "from ", " from", "[from]"),
	},
	{ weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
);

function valueFor(name: string): fc.Arbitrary<string> {
	if (name.startsWith("limit")) return fc.oneof({ weight: 6, arbitrary: limit }, fc.constant(""));
	if (name.startsWith("since")) return fc.oneof({ weight: 6, arbitrary: since }, fc.constant(""));
	if (name.startsWith("from")) return fc.oneof({ weight: 6, arbitrary: from }, fc.constant(""));
	return fc.string({ maxLength: 12 });
}

const pair = key.chain((name) => valueFor(name).map((value) => [name, value] as const));

/** Characters a query may carry unencoded and that mean nothing to URLSearchParams. */
const LEAVE = /[A-Za-z0-9\-._~!$'()*,;:@/?[\]]/;

/** Percent-encodes text as UTF-8, leaving what `keep` accepts as it is. */
function encode(text: string, keep: (character: string) => boolean, space: string): string {
	let out = "";
	for (const character of text.toWellFormed()) {
		if (character === " ") out += space;
		else if (keep(character)) out += character;
		else
			for (const byte of Buffer.from(character, "utf8"))
				out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}

/** How one key or value is written into the query string. */
const writing = fc.constantFrom<(text: string) => string>(
	encodeURIComponent,
	(text) => encode(text, (character) => LEAVE.test(character), "+"),
	// A `+` left as it is means a space: the contract's reason for `%2B`.
	(text) => encode(text, (character) => LEAVE.test(character) || character === "+", "%20"),
	(text) => encode(text, () => false, "%20").toLowerCase(),
);

// Percent sequences that decode to no character or to half of one.
const BROKEN = ["%C0%AF", "%", "%Z", "%4", "%E2%82", "%ED%A0%80", "%FF", "%00", "%%", "%C3", "%F0%9F%98"];

const written = fc
	.tuple(
		pair,
		writing,
		writing,
		fc.option(fc.tuple(fc.constantFrom(...BROKEN), fc.nat()), { nil: undefined }),
	)
	.map(([[name, value], writeKey, writeValue, broken]) => {
		let text = writeValue(value.toWellFormed());
		if (broken !== undefined) {
			const at = broken[1] % (text.length + 1);
			text = text.slice(0, at) + broken[0] + text.slice(at);
		}
		return `${writeKey(name.toWellFormed())}=${text}`;
	});

// Thousands of parameters that change nothing (unknown keys) or, repeated or bracketed, make a 422.
const filler = fc
	.tuple(
		fc.integer({ min: 100, max: 3000 }),
		fc.constantFrom("a=1", "from=", "limit=", "x[]=y", "since=", "q", "&", "=", "from[]="),
	)
	.map(([count, item]) => Array.from({ length: count }, () => item).join("&"));

const SEPARATOR = fc.constantFrom("&", "&", "&", "&&", ";", "&amp;");

/** A raw query string, without its `?`, at most `maxLength` characters. */
export const queryString = fc
	.tuple(
		fc.array(fc.tuple(written, SEPARATOR), { maxLength: 7 }),
		fc.option(filler, { freq: 8, nil: undefined }),
		fc.nat(7),
	)
	.map(([pairs, bulk, at]) => {
		const items = pairs.map(([text, separator]) => text + separator);
		if (bulk !== undefined) items.splice(at % (items.length + 1), 0, `${bulk}&`);
		return items.join("").replace(/&$/, "");
	});

/** Bun refuses a request head past 16 KiB (431); queries the application must answer stay well below it. */
export const APP_QUERY_LIMIT = 15_000;
