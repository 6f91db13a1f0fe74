/**
 * What each real call of fixtures/hylafax/ looks like to a tester: the fax's
 * page (verdict, advice, facts rows, timeline) and its row on the live list,
 * as text, built as a hand-over builds the report (the received file when
 * HylaFAX kept one, the session log, the reason of its xferfaxlog record).
 * `npm test` holds each call's page.txt against it
 * (test/report/fixture-pages.test.ts); `bun testkit/fixture-pages.ts` writes
 * them, to be read against the session log before committing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Fax } from "../lib/fax/index.ts";
import { faxPage, livePage } from "../lib/pages/index.ts";
import { buildReport, type FaxReport, NO_PAGE_REASON, verdictOf } from "../lib/report/index.ts";
import { xferfaxlogRecords } from "./hylafax-calls.ts";
import { htmlText } from "./transmission-report.ts";

export const CALLS_DIR = join(import.meta.dir, "../fixtures/hylafax");
const SEND_TO = { numbers: [], addresses: [] };

/** The real calls kept as fixtures: every folder with a receiver's session log. */
export function fixtureCalls(): string[] {
	return readdirSync(CALLS_DIR)
		.filter((name) => existsSync(join(CALLS_DIR, name, "receiver.log")))
		.sort();
}

/** The reason of the call's xferfaxlog record (RECV, else CALL): what FaxRcvdCmd and the sweep hand over. */
function handedReason(call: string): string | null {
	const records = xferfaxlogRecords(readFileSync(join(CALLS_DIR, call, "xferfaxlog"), "latin1"));
	const record =
		records.find((entry) => entry.kind === "RECV") ?? records.find((entry) => entry.kind === "CALL");
	return record === undefined || record.reason === "" ? null : record.reason;
}

/**
 * The report a hand-over builds: with the session log when it names the file
 * (FaxRcvdCmd's and the sweep's way of finding it), without one when it does
 * not (a call cut off under HylaFAX: the sweep lists its file alone).
 */
function reportOf(call: string): FaxReport {
	const file = join(CALLS_DIR, call, "received.tif");
	const withFile = existsSync(file);
	const log = readFileSync(join(CALLS_DIR, call, "receiver.log"), "latin1");
	const named = !withFile || /"recvq\/fax\d+\.tif"/.test(log);
	return buildReport({
		source: "phone",
		bytes: withFile ? new Uint8Array(readFileSync(file)) : new Uint8Array(),
		email: null,
		relayedByUs: false,
		...(withFile ? {} : { reason: NO_PAGE_REASON }),
		hylafax: { log: named ? log : null, reason: handedReason(call), callOnly: !withFile },
	});
}

function text(html: string): string {
	return htmlText(html.replace(/<\/dt>/g, ": ").replace(/<\/(li|p|dd|h2)>/g, "\n"))
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "")
		.join("\n");
}

const part = (html: string, pattern: RegExp) => text(pattern.exec(html)?.[1] ?? "");

/** The call's page and list row as a tester reads them. */
export function fixturePage(call: string): string {
	const report = reportOf(call);
	const pages = report.document?.format === "TIFF" ? report.document.pages : null;
	const fax: Fax = {
		slug: "fax_FixtureCall01",
		source: "phone",
		from: "IAXmodem",
		received_at: "2026-11-26T10:00:00Z",
		page_count: pages,
		file_size: pages === null ? null : 1000,
		pdf_url: pages === null ? null : "http://localhost/cdn/faxes/fax_FixtureCall01.pdf",
		thumbnail_url: pages === null ? null : "http://localhost/cdn/faxes/fax_FixtureCall01-thumb.jpg",
		view_url: "http://localhost/faxtest/fax_FixtureCall01",
	};
	const html = faxPage(fax, report, SEND_TO).html;
	const list = livePage(
		{ items: [{ fax, outcome: verdictOf(report).row }], etag: '"x"', calls: [], nowMs: 0 },
		{ kind: "all" },
		"http://localhost",
		SEND_TO,
	).html;
	return [
		`# ${call}: the fax's page`,
		part(html, /(<section id="verdict"[\s\S]*?<\/section>)/),
		part(html, /<\/section>\s*(<dl>[\s\S]*?<\/dl>)/).replace(/^Received: .*\n/m, ""),
		// The report's heading only with something under it.
		...(html.includes('<h2 id="report-title">')
			? ["## Transmission report", part(html, /<h2 id="report-title">[\s\S]*?<\/h2>([\s\S]*?)<\/section>/)]
			: []),
		"## The call, step by step",
		part(html, /(<ol id="timeline">[\s\S]*?<\/ol>)/),
		"## Its row on /faxtest",
		part(list, /(<li data-slug[\s\S]*?<\/li>)/).replace(/\n2026-.*$/, ""),
		"",
	].join("\n");
}

if (import.meta.main) {
	for (const call of fixtureCalls()) await Bun.write(join(CALLS_DIR, call, "page.txt"), fixturePage(call));
}
