// The verdict table (lib/report/verdict.ts): each rule, from the report of a
// real call's received file and session log (fixtures/hylafax/) or of a real
// email (fixtures/ingest/), as ingest builds it.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseFaxEmail } from "../../lib/document/index.ts";
import { buildReport, type FaxReport, VERDICTS, verdictOf } from "../../lib/report/index.ts";

const ROOT = join(import.meta.dir, "../..");
const bytes = async (path: string) => new Uint8Array(await Bun.file(join(ROOT, path)).arrayBuffer());
const text = (path: string) => Bun.file(join(ROOT, path)).text();

/** The report of a call: its received file (none when it left none) and its session log. */
async function callReport(call: string, options: { file?: boolean; reason?: string; log?: string } = {}) {
	const withFile = options.file ?? true;
	const log = options.log ?? (await text(`fixtures/hylafax/${call}/receiver.log`));
	return buildReport({
		source: "phone",
		bytes: withFile ? await bytes(`fixtures/hylafax/${call}/received.tif`) : new Uint8Array(),
		email: null,
		relayedByUs: false,
		...(withFile ? {} : { reason: "the call ended before its first page" }),
		hylafax: { log, reason: options.reason ?? null, callOnly: !withFile },
	});
}

async function emailReport(name: string, change = (message: string) => message): Promise<FaxReport> {
	const message = new TextEncoder().encode(change(await text(`fixtures/ingest/${name}`)));
	const email = await parseFaxEmail(message);
	const reason = email.attachment === null ? "email has no PDF or TIFF attachment" : undefined;
	return buildReport({
		source: "email",
		bytes: message,
		email,
		relayedByUs: false,
		...(reason ? { reason } : {}),
	});
}

const tested = new Set<string>();
function expectRule(report: FaxReport, rule: string) {
	const verdict = verdictOf(report);
	expect(verdict.rule).toBe(rule);
	tested.add(rule);
	return verdict;
}

describe("the verdict of a real call", () => {
	test("handshake-failed: the sender's TSI came, then nothing (sender gone during training), no FaxRcvdCmd", async () => {
		const verdict = expectRule(await callReport("killtcf", { file: false }), "handshake-failed");
		expect(verdict).toMatchObject({ status: "failed" });
		expect(verdict.title).toBe(
			"Your fax machine called, but the two machines never agreed how to send: no page arrived. HylaFAX said: “Failure to receive silence (synchronization failure).”.",
		);
		expect(verdict.advice[0]).toStartWith("Set your fax machine to a lower speed (9,600 bit/s;");
	});

	test("ended-before-first-page: training succeeded, the sender gone before page 1; FaxRcvdCmd's reason", async () => {
		const reason = "Failed to properly detect high-speed data carrier.";
		const verdict = expectRule(
			await callReport("killtrain", { file: false, reason }),
			"ended-before-first-page",
		);
		expect(verdict.title).toBe(
			`The machines agreed how to send, then the call ended before page 1 arrived. HylaFAX said: “${reason}”.`,
		);
	});

	test("ended-during-page: page 1 confirmed, then the sender gone before page 2 (the file kept, FaxRcvdCmd's reason)", async () => {
		const reason = "Failed to properly detect high-speed data carrier.";
		const verdict = expectRule(await callReport("killpage2", { reason }), "ended-during-page");
		expect(verdict.title).toBe(
			`The call ended early, after page 1: 1 page arrived whole. HylaFAX said: “${reason}”.`,
		);
		expect(verdict.advice).toHaveLength(1);
	});

	test("ended-during-page: the sender gone as page 2 began (real call, fixtures/hylafax/killmidpage): page 1 kept, page 2 never came, HylaFAX's reason", async () => {
		const reason = "Write error to file recvq/fax000000069.tif";
		const report = await callReport("killmidpage", { reason });
		expect(report.document).toMatchObject({ format: "TIFF", pages: 1 });
		const verdict = expectRule(report, "ended-during-page");
		expect(verdict.title).toBe(
			`The call ended early, during page 2 (none of it came: your machine stopped sending): 1 page arrived whole. HylaFAX said: “${reason}”.`,
		);
	});

	test("bad-lines: a page without ECM with bad lines (HylaFAX's line for it, in the ECM-off call's log)", async () => {
		const log = (await text("fixtures/hylafax/ecmoff9600/receiver.log")).replace(
			"10:29:57.33: [14119]: RECV: 400 total lines, 0 bad lines, 0 consecutive bad lines",
			"10:29:57.33: [14119]: RECV: 400 total lines, 34 bad lines, 8 consecutive bad lines",
		);
		const verdict = expectRule(await callReport("ecmoff9600", { log }), "bad-lines");
		expect(verdict.title).toBe(
			"The pages arrived, but damaged: page 1 had 34 bad lines (8 in a row), which HylaFAX filled in by repeating the line above.",
		);
		expect(verdict.advice[0]).toStartWith("Turn error correction (ECM) on");
	});

	test("ecm-resent: partial page requests (HylaFAX's PPR line, in the clean ECM call's log)", async () => {
		const log = (await text("fixtures/hylafax/clean/receiver.log")).replace(
			"10:28:45.87: [14119]: RECV send MCF (message confirmation)",
			"10:28:45.87: [14119]: RECV send PPR (partial page request)\nNov 26 10:28:45.87: [14119]: RECV send MCF (message confirmation)",
		);
		const verdict = expectRule(await callReport("clean", { log }), "ecm-resent");
		expect(verdict.title).toContain("asked 1 times for parts of a page again (ECM)");
	});

	test("ecm-off: all pages arrived without error correction (sendfax -E -B 9600)", async () => {
		const verdict = expectRule(await callReport("ecmoff9600"), "ecm-off");
		expect(verdict).toMatchObject({ status: "warning" });
		expect(verdict.title).toBe(
			"All pages arrived, sent without error correction at 9,600 bit/s: a noisy line would have damaged them unseen.",
		);
	});

	test("all-good: the clean call", async () => {
		const verdict = expectRule(await callReport("clean"), "all-good");
		expect(verdict).toEqual({
			rule: "all-good",
			status: "good",
			title: "All good: 2 pages arrived complete.",
			advice: [],
		});
	});
});

describe("the verdict of a real email", () => {
	test("email-no-attachment: the message whose sender forgot the attachment", async () => {
		const verdict = expectRule(await emailReport("no-attachment.eml"), "email-no-attachment");
		expect(verdict.title).toBe(
			"The email arrived, but there is nothing to show: The email has no PDF or TIFF attachment.",
		);
	});

	test("tiff-not-t37: a TIFF sent as plain image/tiff", async () => {
		const report = await emailReport("t37-tiff-f.eml", (message) =>
			message.replace(/;\s*application=faxbw/i, ""),
		);
		expectRule(report, "tiff-not-t37");
	});

	test("not-processable: a document that cannot be shown", async () => {
		const report = {
			...(await emailReport("scan-to-email.eml")),
			problem: "The PDF is cut short or damaged.",
		};
		expectRule(report, "not-processable");
	});

	test("all-good: a scan-to-email PDF and a T.37 TIFF-F", async () => {
		expectRule(await emailReport("scan-to-email.eml"), "all-good");
		expectRule(await emailReport("t37-tiff-f.eml"), "all-good");
	});
});

test("every rule of the table is tested above", () => {
	expect([...tested].sort()).toEqual(VERDICTS.map((rule) => rule.rule).sort());
});
