// `bun bench/hylafax-reasons.ts SRC_DIR` prints fixtures/hylafax/reasons-6.0.7.txt:
// every reason HylaFAX 6.0.7 can give a failed RECEIVE (the Status that
// FaxServer::recvFax logs as `RECV FAX: <reason>`, hands FaxRcvdCmd and
// writes in xferfaxlog's RECV and CALL records), one `faxd/FILE<TAB>string`
// a line, sorted. SRC_DIR is an unpacked HylaFAX 6.0.7 source tree: Debian's
// `apt-get source hylafax` (3:6.0.7-5; its orig tarball is the same tree as
// the HYLAFAX-6_0_7 tag of github.com/ifax/HylaFAX). Not run in CI; run it
// again and compare when HylaFAX changes, then update
// lib/report/hylafax-reasons.ts to match (test/report/hylafax-reasons.test.ts
// checks the two agree).
//
// What counts as receive side, read from the sources:
// - every `Status(NNN, "...")` literal of the functions that receive: all of
//   Class1Recv.c++ and FaxRecv.c++, Class1Modem::switchingPause (called
//   between the receiver's frames), the page-data readers of CopyQuality.c++,
//   and faxGettyApp's FIFO abort (the reason ModemServer::abortReason hands
//   the receive when an operator aborts);
// - of Class2.c++'s hangup codes (Class2Recv.c++ reports whichever code a
//   Class 2 modem gives), the ones a receiving modem gives: call termination,
//   "miscellaneous" Phase A, receive Phases B, C and D, the Agere and Everex
//   codes of a receive or of our own abort; not the dialling (ringback),
//   transmit-phase or polling ones; and "Unknown hangup code".
// Left out: ClassModem's answer statuses and faxGettyApp's answerPhone and
// runGetty statuses (the call was never handed to recvFax), and
// FaxModem::decodePPM (send only).
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Functions whose Status literals are receive side, by file; "all" for the whole file. */
const RECEIVE_FUNCTIONS: Record<string, string[] | "all"> = {
	"faxd/Class1.c++": ["switchingPause"],
	"faxd/Class1Recv.c++": "all",
	"faxd/CopyQuality.c++": ["recvPageDLEData", "flushEncodedData", "flushRawData"],
	"faxd/FaxRecv.c++": "all",
	"faxd/faxGettyApp.c++": ["FIFOMessage"],
	"faxd/Class2.c++": ["hangupStatus"],
};

/** HylaFAX's numbers (STATUS.txt) of the Class 2 hangup codes a receiving modem gives. */
const RECEIVE_HANGUP_STATUSES = new Set([
	211, 212, 213, 214, 217, 218, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 262,
	265,
]);

const LITERALS = String.raw`((?:"(?:[^"\\]|\\.)*"\s*)+)`;
const STATUS = new RegExp(String.raw`\bStatus\(\s*(\d+)\s*,\s*${LITERALS}`, "g");
const HANGUP = new RegExp(String.raw`\{\{[^}]*\},\s*(\d+),\s*${LITERALS}\}`, "g");
// A function's definition starts at column 0: `Class1Modem::recvPage(` or `const Status& Class2Modem::hangupStatus (`.
const DEFINITION = /^(?:[\w&*<> ]+ )?\w+::(~?\w+)\s*\(/;

/** The text of adjacent C string literals, joined and unescaped. */
function cString(literals: string): string {
	const parts = literals.match(/"(?:[^"\\]|\\.)*"/g) ?? [];
	return parts.map((part) => part.slice(1, -1).replace(/\\(.)/g, "$1")).join("");
}

/** The function each line of a C++ file belongs to ("" outside any). */
function functionOfLines(text: string): string[] {
	let current = "";
	return text.split("\n").map((line) => {
		const match = DEFINITION.exec(line);
		if (match) current = match[1] ?? "";
		return current;
	});
}

function lineAt(text: string, index: number): number {
	return text.slice(0, index).split("\n").length - 1;
}

/** The receive-side reasons of one file. */
function reasonsOf(srcDir: string, file: string, wanted: string[] | "all"): string[] {
	const text = readFileSync(join(srcDir, file), "utf8");
	const functions = functionOfLines(text);
	const found: string[] = [];
	for (const match of text.matchAll(STATUS)) {
		const inside = functions[lineAt(text, match.index)] ?? "";
		if (wanted === "all" || wanted.includes(inside)) found.push(cString(match[2] ?? ""));
	}
	if (file === "faxd/Class2.c++") {
		for (const match of text.matchAll(HANGUP)) {
			if (RECEIVE_HANGUP_STATUSES.has(Number(match[1]))) found.push(cString(match[2] ?? ""));
		}
	}
	if (found.length === 0) throw new Error(`${file}: no receive-side reason found; has the source changed?`);
	return found;
}

/** Every receive-side reason as `file<TAB>string`, sorted, each once. */
export function receiveReasons(srcDir: string): string[] {
	const lines = Object.entries(RECEIVE_FUNCTIONS).flatMap(([file, wanted]) =>
		reasonsOf(srcDir, file, wanted).map((reason) => `${file}\t${reason}`),
	);
	return [...new Set(lines)].sort();
}

if (import.meta.main) {
	const srcDir = process.argv[2];
	if (srcDir === undefined) {
		console.error("usage: bun bench/hylafax-reasons.ts SRC_DIR (an unpacked HylaFAX 6.0.7 source tree)");
		process.exit(2);
	}
	process.stdout.write(`${receiveReasons(srcDir).join("\n")}\n`);
}
