// The table of HylaFAX 6.0.7's receive-side reasons against the strings of
// its source (fixtures/hylafax/reasons-6.0.7.txt, listed by
// bench/hylafax-reasons.ts), against Debian's installed faxgetty (hylafax-server
// 3:6.0.7-5, which .ci/run installs), and against the reasons of real calls
// (fixtures/hylafax/*/xferfaxlog).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HYLAFAX_REASONS, type HylafaxReason, reasonOf } from "../../lib/report/hylafax-reasons.ts";
import { xferfaxlogRecords } from "../../testkit/hylafax-calls.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/hylafax");
const SOURCE_LINES = readFileSync(join(FIXTURES, "reasons-6.0.7.txt"), "utf8")
	.split("\n")
	.filter((line) => line !== "")
	.map((line) => {
		const [file = "", text = ""] = line.split("\t");
		return { file, text };
	});

const matches = (reason: HylafaxReason, text: string) =>
	reason.pattern ? reason.pattern.test(text) : reason.raw === text;
const sourcesOf = (reason: HylafaxReason) => reason.source.split(", ");

/** The raw with its formatted parts cut out: the longest literal piece. */
function fixedText(raw: string): string {
	return raw.split(/%[-#+ 0-9.]*[a-zA-Z]/).reduce((a, b) => (b.length > a.length ? b : a), "");
}

/** faxgetty and the HylaFAX libraries it links, as one latin1 string. */
function installedBinaries(): { files: string[]; bytes: string } {
	const faxgetty = "/usr/sbin/faxgetty";
	const ldd = Bun.spawnSync(["ldd", faxgetty]).stdout.toString();
	const libraries = [...ldd.matchAll(/=>\s*(\S*(?:hylafax|faxserver)\S*)/g)].map((match) => match[1] ?? "");
	const files = [faxgetty, ...libraries];
	return { files, bytes: files.map((file) => readFileSync(file).toString("latin1")).join("\n") };
}

/** The reason field (14th) of every RECV and CALL record of the real calls' xferfaxlogs. */
function xferfaxlogReasons(): string[] {
	return readdirSync(FIXTURES, { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.flatMap((entry) => xferfaxlogRecords(readFileSync(join(FIXTURES, entry.name, "xferfaxlog"), "utf8")))
		.filter((record) => record.kind === "RECV" || record.kind === "CALL")
		.map((record) => record.reason);
}

// Jargon a tester cannot read; ECM and V.34 only with their explanation in the same sentence.
const JARGON =
	/RSPREC|COMREC|\bDCN\b|\bEOT\b|\bDIS\b|\bDTC\b|\bDCS\b|\bTCF\b|\bPPR\b|\bPPM\b|\bRNR\b|\bCTC\b|\bEOM\b|\bEOL\b|T\.30|\bT[12]\b|\+F|\bDTE\b|\bDCE\b|\bXO(?:N|FF)\b|Phase [A-D]/;
const EXPLAINED: [RegExp, RegExp][] = [
	[/\bECM\b/, /error correction \(ECM\)/],
	[/V\.34/, /super G3 \(V\.34\)/],
];
const sentencesOf = (words: string) => words.split(/(?<=\.)\s+(?=[A-Z])/);

describe("HylaFAX 6.0.7's receive-side reasons against its source", () => {
	test("every string of the source is matched by exactly one entry, from a file the entry names", () => {
		const wrong = SOURCE_LINES.flatMap(({ file, text }) => {
			const found = HYLAFAX_REASONS.filter((reason) => matches(reason, text));
			const named = found.length === 1 && sourcesOf(found[0] as HylafaxReason).includes(file);
			return named ? [] : [`${file}\t${text}: ${found.length} entries`];
		});
		expect(wrong).toEqual([]);
		const covered = SOURCE_LINES.filter(({ text }) =>
			HYLAFAX_REASONS.some((reason) => matches(reason, text)),
		);
		expect({ strings: SOURCE_LINES.length, covered: covered.length }).toEqual({ strings: 57, covered: 57 });
	});

	test("every entry matches at least one string of the source, in each file it names", () => {
		const unused = HYLAFAX_REASONS.flatMap((reason) =>
			sourcesOf(reason)
				.filter((file) => !SOURCE_LINES.some((line) => line.file === file && matches(reason, line.text)))
				.map((file) => `${file}\t${reason.raw}`),
		);
		expect(unused).toEqual([]);
		expect(HYLAFAX_REASONS.length).toBe(54);
		expect(new Set(HYLAFAX_REASONS.map((reason) => reason.raw)).size).toBe(54);
	});

	test("only formatted strings have a pattern, and it matches the string as written", () => {
		const formatted = HYLAFAX_REASONS.filter((reason) => /%[a-z]/.test(reason.raw)).map(
			(reason) => reason.raw,
		);
		const patterned = HYLAFAX_REASONS.filter((reason) => reason.pattern).map((reason) => reason.raw);
		expect(patterned).toEqual(formatted);
		expect(formatted).toEqual([
			"Unable to open TIFF file %s for writing",
			"Unable to create temp file for received data: %s",
			"Write error to file %s",
		]);
	});
});

describe("HylaFAX 6.0.7's receive-side reasons against Debian's installed binaries", () => {
	const { files, bytes } = installedBinaries();

	test("faxgetty links HylaFAX's own library", () => {
		expect(files).toEqual(["/usr/sbin/faxgetty", "/usr/lib/hylafax/libhylafax-6.0.so.7"]);
	});

	test("every entry's fixed text (12 characters at least) is in faxgetty or its HylaFAX libraries", () => {
		const short = HYLAFAX_REASONS.filter((reason) => fixedText(reason.raw).length < 12).map((r) => r.raw);
		expect(short).toEqual([]);
		const missing = HYLAFAX_REASONS.filter((reason) => !bytes.includes(fixedText(reason.raw))).map(
			(reason) => `not in Debian's binaries: ${reason.raw}`,
		);
		expect(missing).toEqual([]);
	});
});

describe("the words and advice of each reason", () => {
	test("each text is one or two sentences ending with exactly one period, with no doubled punctuation", () => {
		const wrong = HYLAFAX_REASONS.filter(
			({ words }) =>
				!words.endsWith(".") ||
				words.endsWith("..") ||
				/[.,;:!?]\s*[.,;:!?]|[.!?][”"’]\./.test(words) ||
				sentencesOf(words).length > 2,
		).map((reason) => reason.words);
		expect(wrong).toEqual([]);
	});

	test("no text uses T.30 jargon unexplained or quotes the raw reason", () => {
		const unexplained = HYLAFAX_REASONS.flatMap(({ raw, words }) =>
			sentencesOf(words)
				.filter(
					(sentence) =>
						JARGON.test(sentence) ||
						EXPLAINED.some(([term, explained]) => term.test(sentence) && !explained.test(sentence)) ||
						sentence.includes(fixedText(raw)),
				)
				.map((sentence) => `${raw}: ${sentence}`),
		);
		expect(unexplained).toEqual([]);
	});

	test("advice keys are unique per entry", () => {
		const doubled = HYLAFAX_REASONS.filter((reason) => new Set(reason.advice).size !== reason.advice.length);
		expect(doubled.map((reason) => reason.raw)).toEqual([]);
	});

	test("the fixed points: who ended the call and the advice of the reasons testers meet", () => {
		const facts = (raw: string) => {
			const reason = reasonOf(raw);
			return reason && { endedBy: reason.endedBy, advice: reason.advice };
		};
		expect(facts("RSPREC error/got DCN (sender abort)")?.endedBy).toBe("sender");
		expect(facts("No sender protocol (T.30 T1 timeout)")).toEqual({
			endedBy: "receiver-timeout",
			advice: ["check-caller", "line"],
		});
		expect(facts("Failed to properly detect high-speed data carrier.")).toEqual({
			endedBy: "line",
			advice: ["lower-speed", "line"],
		});
		expect(facts("Write error to file recvq/fax000000069.tif")).toEqual({
			endedBy: "receiver-system",
			advice: ["try-again"],
		});
		expect(facts("COMREC received DCN (sender abort)")).toEqual({
			endedBy: "sender",
			advice: ["sender-report"],
		});
	});
});

describe("reasonOf", () => {
	test("finds every reason of the real calls' xferfaxlog RECV and CALL records", () => {
		const reasons = xferfaxlogReasons().filter((reason) => reason !== "");
		expect(reasons.filter((reason) => reasonOf(reason) === null)).toEqual([]);
		expect(Object.fromEntries(reasons.map((reason) => [reason, reasonOf(reason)?.endedBy]))).toEqual({
			"Failure to receive silence (synchronization failure).": "line",
			"Write error to file recvq/fax000000069.tif": "receiver-system",
			"Failed to properly detect high-speed data carrier.": "line",
			"No sender protocol (T.30 T1 timeout)": "receiver-timeout",
			"RSPREC error/got DCN (sender abort)": "sender",
			"COMREC received DCN (sender abort)": "sender",
			"RSPREC error/got EOT": "sender",
			"RSPREC invalid response received": "sender",
			"Timeout waiting for Phase C carrier drop": "line",
		});
	});

	test("trims, matches a formatted reason by its pattern, and knows no other string", () => {
		expect(reasonOf("  Failure to train modems\n")?.codes).toEqual([105]);
		expect(
			reasonOf("Unable to create temp file for received data: Failed to find unused filename")?.codes,
		).toEqual([902]);
		expect(reasonOf("RSPREC invalid response received")?.codes).toEqual([104, 255]);
		// No reason is written both with and without a final period, so none is tolerated.
		expect(reasonOf("Failure to train modems.")).toBeNull();
		expect(reasonOf("Failed to properly detect high-speed data carrier")).toBeNull();
		expect(reasonOf("")).toBeNull();
	});
});
