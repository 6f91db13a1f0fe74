import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { exchange, Tally } from "./answers.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

/**
 * Any text a fax machine or a mail header could send as its sender, not only
 * well-formed numbers and addresses: the API shows it by DECISIONS.md's
 * masking rules, computed here from the rules' own words, and the sender's own
 * text finds it again with `from=`.
 */

let server: TestServer;
let db: Database;
let store: FaxStore;
const tally = new Tally("any sender");
let caseNumber = 0;

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
	db = openDatabase(server.databasePath);
	store = new FaxStore(db);
});
afterAll(async () => {
	tally.report(CASES.anySender[LONG_RUN ? "long" : "fast"]);
	db.close();
	await server.stop();
});

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const graphemes = (text: string) => [...GRAPHEMES.segment(text)].map((part) => part.segment);

/**
 * The ASCII digit of a decimal digit of any script. Each script's digits are a
 * run of ten, 0 to 9; runs can follow each other (Myanmar Pao and Eastern Pwo
 * Karen digits), so the value is the distance from the first digit before it, modulo 10.
 */
function asciiDigit(digit: string): string {
	let code = digit.codePointAt(0) as number;
	let distance = 0;
	while (/\p{Nd}/u.test(String.fromCodePoint(code - 1))) {
		code--;
		distance++;
	}
	return String(distance % 10);
}

/** The sender as the rules read it (docs/decisions.md): NFKC, no format characters, digits as ASCII. */
function normalised(raw: string): string {
	return raw
		.toWellFormed()
		.normalize("NFKC")
		.replace(/\p{Cf}/gu, "")
		.replace(/\p{Nd}/gu, asciiDigit);
}

/** DECISIONS.md rules 1, 3 and 4 word for word; for an email (rule 2) only the shape, checked apart. */
function expectedFrom(raw: string): string | null | "email" {
	const sender = normalised(raw).trim();
	if (sender === "") return null;
	if (sender.includes("@")) return "email";
	const compact = sender.replace(/\s/g, "");
	const positions = [...compact].flatMap((character, index) => (/[0-9]/.test(character) ? [index] : []));
	if (positions.length < 6) return sender;
	// Code units, not code points: the digits found are ASCII, every other character is kept whole.
	const units = [...compact];
	const maskFrom = positions[Math.max(0, positions.length - 8)] as number;
	const keepFrom = positions[positions.length - 3] as number;
	return `${units.slice(0, maskFrom).join("")}*****${units.slice(keepFrom).join("")}`;
}

/** `x***@y***.tld`: at most one character before each `***`, a top-level part of letters only. */
function emailShapeProblems(from: unknown): string[] {
	if (typeof from !== "string") return [`from is ${JSON.stringify(from)}`];
	const match = /^(.*)\*\*\*@(.*)\*\*\*(\.[\p{L}\p{M}-]+)?$/su.exec(from);
	if (match === null) return [`from ${from} is no masked address`];
	const [, local = "", domain = ""] = match;
	return graphemes(local).length <= 1 && graphemes(domain).length <= 1 ? [] : [`from ${from} shows too much`];
}

const PIECES = fc.constantFrom(
	"@",
	"＠",
	"﹫",
	"+",
	"＋",
	" ",
	"\u200b",
	"\u00ad",
	"<",
	">",
	"(",
	")",
	".",
	"-",
	"*",
	"1",
	"５",
	"٣",
	"²",
	"①",
	"𝟗",
	"a",
	"É",
	"👍🏽",
	"e\u0301",
	"\ud800",
	"Unknown",
	"\t",
	"\n",
	"\u0000",
);

const rawSender = fc.oneof(
	fc.array(PIECES, { maxLength: 30 }).map((pieces) => pieces.join("")),
	fc.string({ unit: "grapheme", maxLength: 30 }),
	fc.string({ unit: "binary", maxLength: 20 }),
	fc
		.tuple(fc.string({ maxLength: 10 }), fc.stringMatching(/^[0-9 ]{6,20}$/), fc.string({ maxLength: 5 }))
		.map(([before, digits, after]) => before + digits + after),
);

/** A phone fax from `raw`, received a minute ago. */
const insertSender = (slug: string, raw: string) =>
	store.insert({
		slug,
		source: "phone",
		sender: raw,
		received_at: NOW_SECONDS - 60,
		page_count: null,
		file_size: null,
	});

test(
	"any sender text shows as the masking rules give it, and its own text finds it",
	async () => {
		await fc.assert(
			fc.asyncProperty(rawSender, async (raw) => {
				const slug = `fax_Any${++caseNumber}x`;
				await insertSender(slug, raw);
				const single = tally.see(await exchange(server.port, "GET", `/api/faxes/${slug}`));
				const from = (JSON.parse(single.body) as { from: unknown }).from;
				const expected = expectedFrom(raw);
				const problems =
					expected === "email"
						? emailShapeProblems(from)
						: from === expected
							? []
							: [`from ${JSON.stringify(from)}, not ${JSON.stringify(expected)}`];

				// A fax without a sender is found as Unknown; any other by its own text, unless that text's match key is Unknown's.
				const query = expected === null ? "Unknown" : raw.toWellFormed();
				const sayUnknown =
					expected !== null &&
					normalised(raw).toLowerCase().replace(/\s/g, "").replace(/^\+/, "") === "unknown";
				if (!sayUnknown && graphemes(query).length <= 255) {
					const list = tally.see(
						await exchange(server.port, "GET", `/api/faxes?limit=100&from=${encodeURIComponent(query)}`),
					);
					const slugs = (JSON.parse(list.body) as { slug: string }[]).map((fax) => fax.slug);
					if (!slugs.includes(slug)) problems.push(`from=${JSON.stringify(query)} does not find it`);
				}
				expect({ raw, problems }).toEqual({ raw, problems: [] });
			}),
			runs("anySender"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

test("digits of scripts whose runs of ten follow each other read as their own values (a fuzzing counterexample)", async () => {
	// Myanmar Pao digits U+116D0–U+116D9, then Eastern Pwo Karen digits U+116DA–U+116E3.
	const pao = (digits: string) => [...digits].map((d) => String.fromCodePoint(0x116d0 + Number(d))).join("");
	const karen = (digits: string) =>
		[...digits].map((d) => String.fromCodePoint(0x116da + Number(d))).join("");
	const raw = `+${pao("1555")} ${karen("0123456")}`;
	const slug = "fax_AdjacentDigitRuns";
	await insertSender(slug, raw);
	const single = await exchange(server.port, "GET", `/api/faxes/${slug}`);
	const found = await exchange(server.port, "GET", "/api/faxes?from=%2B15550123456");
	expect([
		(JSON.parse(single.body) as { from: string }).from,
		(JSON.parse(found.body) as { slug: string }[]).map((fax) => fax.slug),
	]).toEqual(["+155*****456", [slug]]);
});
