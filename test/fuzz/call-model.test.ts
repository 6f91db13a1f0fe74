// The model of a call against session logs generated from a grammar of
// HylaFAX 6.0.7's real receive lines (as in fixtures/hylafax/*/receiver.log):
// a handshake with damaged frames and repeats, trainings, pages with and
// without ECM, and every way a call ends. What the generator made is the
// oracle: how many pages it confirmed, whether it ended EOP → MCF → DCN.
import { expect, test } from "bun:test";
import fc from "fast-check";
import type { Fax } from "../../lib/fax/index.ts";
import { faxPage } from "../../lib/pages/index.ts";
import {
	adviceFor,
	buildReport,
	callModel,
	HYLAFAX_REASONS,
	parseSessionLog,
	STEADY_SPEED,
	verdictOf,
} from "../../lib/report/index.ts";
import { PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

type Page = {
	ecm: boolean;
	frames: number;
	pprs: number;
	bad: number;
	post: "MPS" | "EOP";
	confirmed: boolean;
};
type Ending = "dcn" | "damaged-dcn" | "reason" | "modem-error" | "cut" | "none";
type Call = {
	damaged: number;
	dcs: boolean;
	rates: { rate: number; ok: boolean }[];
	pages: Page[];
	ending: Ending;
	reason: string;
	junk: string[];
};

const RATES: Record<number, string> = {
	14400: "v.17",
	12000: "v.17",
	9600: "v.29",
	7200: "v.29",
	4800: "v.27ter",
};

const page: fc.Arbitrary<Page> = fc.record({
	ecm: fc.boolean(),
	frames: fc.integer({ min: 0, max: 40 }),
	pprs: fc.integer({ min: 0, max: 12 }),
	bad: fc.integer({ min: 0, max: 300 }),
	post: fc.constantFrom("MPS" as const, "EOP" as const),
	confirmed: fc.boolean(),
});

const call: fc.Arbitrary<Call> = fc.record({
	damaged: fc.integer({ min: 0, max: 4 }),
	dcs: fc.boolean(),
	rates: fc.array(fc.record({ rate: fc.constantFrom(14400, 12000, 9600, 7200, 4800), ok: fc.boolean() }), {
		maxLength: 3,
	}),
	pages: fc.array(page, { maxLength: 4 }),
	ending: fc.constantFrom<Ending>("dcn", "damaged-dcn", "reason", "modem-error", "cut", "none"),
	reason: fc.constantFrom(...HYLAFAX_REASONS.map((reason) => reason.raw)),
	junk: fc.array(fc.string({ maxLength: 60 }), { maxLength: 3 }),
});

/** The lines of one page, as Class1Recv.c++ writes them. */
function pageLines(page: Page, number: number): string[] {
	const lines: string[] = [];
	if (page.ecm) {
		lines.push(`RECV received ${page.frames} frames of block 1 of page ${number}`);
		for (let i = 0; i < page.pprs; i++) lines.push("RECV send PPR (partial page request)");
	} else
		lines.push(
			`RECV: 400 total lines, ${page.bad} bad lines, ${Math.min(page.bad, 9)} consecutive bad lines`,
		);
	if (!page.confirmed) return lines;
	lines.push(
		`RECV recv ${page.post} (${page.post === "EOP" ? "no more pages or documents" : "more pages, same document"})`,
	);
	lines.push("RECV send MCF (message confirmation)");
	lines.push(
		`RECV FAX (000000002): from IAXmodem, page ${number} in 0:00:11, INF, 3.85 line/mm, 2-D MMR, 14400 bit/s`,
	);
	return lines;
}

/** The pages of the call up to the first one not confirmed, or after the last page said EOP: nothing more comes. */
function pagesSent(generated: Call): Page[] {
	const sent: Page[] = [];
	for (const page of generated.pages) {
		sent.push(page);
		if (!page.confirmed || page.post === "EOP") break;
	}
	return sent;
}

function handshakeLines(generated: Call): string[] {
	const lines = ["SESSION BEGIN 000000002 18005551212", "ANSWER: FAX CONNECTION  DEVICE '/dev/ttyIAX0'"];
	lines.push("<-- HDLC<13:FF C8 01 00 77 5F 23 01 FB C1 01 01 18>");
	for (let i = 0; i < generated.damaged; i++) lines.push("FCS error", "RECV send CRP (command repeat)");
	if (!generated.dcs) return lines;
	lines.push("--> HDLC<9:FF C8 C1 00 44 1F 22 57 DB>", "RECV recv DCS (command signal)");
	lines.push("REMOTE wants 14400 bit/s", "REMOTE wants T.30 Annex A, 256-byte ECM");
	for (const { rate, ok } of generated.rates)
		lines.push(`RECV training at ${RATES[rate]} ${rate} bit/s`, `TRAINING ${ok ? "succeeded" : "failed"}`);
	return lines;
}

function endingLines(generated: Call): string[] {
	switch (generated.ending) {
		case "dcn":
			return ["RECV recv DCN (disconnect)", "SESSION END"];
		case "damaged-dcn":
			// The sender's DCN arrived damaged: HylaFAX ends the session with no reason.
			return ["FCS error", "SESSION END"];
		case "reason":
			return [`RECV FAX: ${generated.reason}`, "RECV FAX: end", "SESSION END"];
		case "modem-error":
			return ["RECV frame FCS check failed", "MODEM READ ERROR: errno 5", "CLOSE /dev/ttyIAX0"];
		case "cut":
			return [];
		case "none":
			return ["SESSION END"];
	}
}

function logOf(generated: Call): string {
	const trained = generated.dcs && generated.rates.some((rate) => rate.ok);
	const body = [
		...handshakeLines(generated),
		...(trained ? pagesSent(generated).flatMap((page, index) => pageLines(page, index + 1)) : []),
		...endingLines(generated),
	];
	const stamped = body.map(
		(text, index) =>
			`Nov 26 10:${String(10 + Math.floor(index / 60)).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}.00: [ 1419]: ${text}`,
	);
	return [...generated.junk, ...stamped].join("\n");
}

/** The generator's own account: confirmed pages, and whether it ended EOP → MCF → DCN (read, damaged or lost). */
function oracle(generated: Call) {
	const trained = generated.dcs && generated.rates.some((rate) => rate.ok);
	const pages = trained ? pagesSent(generated) : [];
	const last = pages.at(-1);
	return {
		pages,
		whole: pages.filter((page) => page.confirmed).length,
		complete:
			last?.confirmed === true &&
			last.post === "EOP" &&
			// HylaFAX ends a session after EOP and our MCF as a clean one, however the DCN came.
			(generated.ending === "dcn" || generated.ending === "damaged-dcn" || generated.ending === "none"),
	};
}

function reportOf(generated: Call) {
	const log = logOf(generated);
	const noPage = oracle(generated).pages.length === 0;
	return buildReport({
		source: "phone",
		bytes: new Uint8Array(),
		email: null,
		relayedByUs: false,
		...(noPage ? { reason: "the call ended before its first page" } : {}),
		hylafax: { log, reason: generated.ending === "reason" ? generated.reason : null, callOnly: noPage },
	});
}

const FAX: Fax = {
	slug: "fax_Generated001",
	source: "phone",
	from: null,
	received_at: "2026-11-26T10:12:00Z",
	page_count: null,
	file_size: null,
	pdf_url: null,
	thumbnail_url: null,
	view_url: "http://localhost/faxtest/fax_Generated001",
};
const SEND_TO = { numbers: [], addresses: [] };

test(
	"property: the parser never throws, whatever the lines; the model counts the pages the call confirmed, and calls it complete only after EOP → MCF → DCN",
	() => {
		fc.assert(
			fc.property(call, fc.array(fc.string({ maxLength: 80 }), { maxLength: 5 }), (generated, noise) => {
				expect(() => parseSessionLog(`${noise.join("\n")}\n${logOf(generated)}`)).not.toThrow();
				const model = callModel(reportOf(generated));
				const expected = oracle(generated);
				expect(model?.wholePages).toBe(expected.whole);
				expect(model?.complete).toBe(expected.complete ? "yes" : "no");
			}),
			runs("callModel"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

test(
	"property: the advice never proposes what the call already did, and a verdict is good only for a complete call",
	() => {
		fc.assert(
			fc.property(call, (generated) => {
				const report = reportOf(generated);
				const model = callModel(report);
				if (model === null) throw new Error("a call by phone has a model");
				const keys = adviceFor(model).map((advice) => advice.key);
				if (keys.includes("lower-speed"))
					expect(model.speed === null || model.speed.bitsPerSecond > STEADY_SPEED).toBe(true);
				if (keys.includes("ecm-on")) expect(model.ecm).toBe(false);
				expect(new Set(keys).size).toBe(keys.length);
				if (verdictOf(report).status === "good") expect(model.complete).toBe("yes");
			}),
			runs("callModel"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

test(
	"property: the page's verdict, its timeline and its Pages row count the same whole pages",
	() => {
		fc.assert(
			fc.property(call, (generated) => {
				const report = reportOf(generated);
				const model = callModel(report);
				const whole = model?.wholePages ?? 0;
				const fax = whole === 0 ? FAX : { ...FAX, page_count: whole + 1, file_size: 1000 };
				const html = faxPage(fax, report, SEND_TO).html;
				const timeline = /<ol id="timeline">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? "";
				expect(timeline.match(/ came whole/g)?.length ?? 0).toBe(whole);
				const verdict = verdictOf(report);
				const pages = `${whole} page${whole === 1 ? "" : "s"}`;
				if (/^ended-(during|after)-page$/.test(verdict.rule))
					expect(verdict.title).toContain(`${pages} arrived whole`);
				if (verdict.rule === "ended-after-last-page")
					expect(verdict.title).toContain(`arrived whole (${pages})`);
				if (whole > 0)
					expect(html).toContain(`<dt>Pages</dt><dd>${whole + 1} in the PDF (${whole} arrived whole)</dd>`);
			}),
			runs("callModel"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
