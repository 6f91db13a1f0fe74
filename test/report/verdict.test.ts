// The verdict table (lib/report/verdict.ts): each rule, from the report of a
// real call's received file and session log (fixtures/hylafax/) or of a real
// email (fixtures/ingest/), as ingest builds it.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseFaxEmail, scanFacts } from "../../lib/document/index.ts";
import {
	buildReport,
	type FaxReport,
	type MailAuthReport,
	VERDICTS,
	verdictOf,
} from "../../lib/report/index.ts";

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

async function emailReport(
	name: string,
	change = (message: string) => message,
	relayedByUs = false,
): Promise<FaxReport> {
	const message = new TextEncoder().encode(change(await text(`fixtures/ingest/${name}`)));
	const email = await parseFaxEmail(message);
	const reason = email.attachment === null ? "email has no PDF or TIFF attachment" : undefined;
	return buildReport({
		source: "email",
		bytes: message,
		email,
		relayedByUs,
		...(reason ? { reason } : {}),
	});
}

/** The scan-to-email fixture's report as checked by a recipient's server that found `auth`. */
async function checkedAs(auth: MailAuthReport): Promise<FaxReport> {
	const report = await emailReport("scan-to-email.eml");
	return { ...report, email: report.email === null ? null : { ...report.email, auth } };
}

const tested = new Set<string>();
function expectRule(report: FaxReport, rule: string) {
	const verdict = verdictOf(report);
	expect(verdict.rule).toBe(rule);
	tested.add(rule);
	return verdict;
}

const SPEED_14400 =
	"This call ran at 14,400 bit/s (V.17): set your fax machine to 9,600 bit/s (on some machines “overseas mode” or “V.29”), which VoIP lines carry far more reliably.";
const LINE_ADVICE =
	"on a VoIP line, ask your provider for T.38, or for G.711 without compression and with echo cancellation off for fax; or try from a direct analogue line.";
const CARRIER_WORDS =
	"Our receiver could not pick up your machine's fast page signal, so the page or its speed test never came through.";
const SYNC_WORDS =
	"The two machines lost step: our receiver waited for a moment of silence between signals and never heard it, as happens on a noisy line or when the call drops.";

describe("the verdict of a real call", () => {
	test("no-fax-machine: a silent caller (killanswer: our DIS twice, nothing back): only checking the caller fits", async () => {
		// recvq lists no such call (lib/ingest/recvq.ts); a report built of one still says what happened.
		const verdict = expectRule(await callReport("killanswer", { file: false }), "no-fax-machine");
		expect(verdict).toEqual({
			rule: "no-fax-machine",
			status: "failed",
			title: `A call came in, but no fax machine answered ours, so no page arrived. ${SYNC_WORDS}`,
			advice: [
				"Check the number you dialled, and that a fax machine is calling: a phone, or a fax machine set to voice, does not answer our fax tones.",
			],
			row: "no fax machine answered",
		});
	});

	test("handshake-failed: the sender's TSI came, then nothing (sender gone during training), no FaxRcvdCmd", async () => {
		const verdict = expectRule(await callReport("killtcf", { file: false }), "handshake-failed");
		expect(verdict).toEqual({
			rule: "handshake-failed",
			status: "failed",
			title: `Your fax machine called, but the two machines never agreed how to send, so no page arrived. ${SYNC_WORDS}`,
			// No training took place: no speed to lower.
			advice: [
				`The line lost or damaged the signal: ${LINE_ADVICE}`,
				"Look at your machine's transmission report, or its display: it says what your machine saw of this call.",
			],
			row: "call failed before page 1",
		});
	});

	test("ended-before-first-page: training succeeded at 14,400, the sender gone before page 1; FaxRcvdCmd's reason", async () => {
		const reason = "Failed to properly detect high-speed data carrier.";
		const verdict = expectRule(
			await callReport("killtrain", { file: false, reason }),
			"ended-before-first-page",
		);
		expect(verdict.title).toBe(
			`The machines agreed how to send, then the call ended before page 1 arrived. ${CARRIER_WORDS}`,
		);
		expect(verdict.advice).toEqual([SPEED_14400, `The line lost or damaged the signal: ${LINE_ADVICE}`]);
		expect(verdict.row).toBe("call ended before page 1");
	});

	test("ended-after-page: page 1 confirmed after MPS, then the sender gone before page 2 (the file kept, FaxRcvdCmd's reason)", async () => {
		const reason = "Failed to properly detect high-speed data carrier.";
		const verdict = expectRule(await callReport("killpage2", { reason }), "ended-after-page");
		expect(verdict.title).toBe(
			`The call ended after page 1, though your machine had said more would follow: 1 page arrived whole. ${CARRIER_WORDS}`,
		);
		expect(verdict.advice).toEqual([SPEED_14400, `The line lost or damaged the signal: ${LINE_ADVICE}`]);
		expect(verdict.row).toBe("call ended after page 1");
	});

	test("ended-during-page: the sender gone as page 2 began (fixtures/hylafax/killmidpage): page 1 kept, none of page 2; our wait ran out, whatever HylaFAX's reason says", async () => {
		const reason = "Write error to file recvq/fax000000069.tif";
		const report = await callReport("killmidpage", { reason });
		expect(report.document).toMatchObject({ format: "TIFF", pages: 1 });
		const verdict = expectRule(report, "ended-during-page");
		expect(verdict.title).toBe(
			"The call ended during page 2: 1 page arrived whole. None of page 2 came. Your machine went silent during page 2: our receiver waited for its data, then gave up.",
		);
		// "Timeout awaiting synchronization sequence", then "RECV: 0 bytes of data": HylaFAX's
		// "Write error to file" is how it reports the empty page, not our disk failing.
		expect(verdict.advice).toEqual([
			`The line lost or damaged the signal: ${LINE_ADVICE}`,
			"Look at your machine's transmission report, or its display: it says what your machine saw of this call.",
		]);
		expect(verdict.row).toBe("call ended during page 2");
	});

	test("ended-during-page: the sender vanished mid-page 2 and the host stopped under HylaFAX (vanish-page2): the log, had it come, says page 2 was partial and the call has no known end", async () => {
		// The log stops at "RECV received frame number 10" of page 2, then "CLOSE /dev/ttyIAX0": no SESSION END, no reason.
		const verdict = expectRule(await callReport("vanish-page2"), "ended-during-page");
		expect(verdict.title).toBe(
			"The call ended during page 2: 1 page arrived whole. Part of page 2 came; how much is not known. The session log stops without an end, so how the call ended is not known.",
		);
		expect(verdict.row).toBe("call ended during page 2");
	});

	test("ended-after-last-page: every page whole after EOP, but HylaFAX ended the call with an error (the clean call's log, FaxRcvdCmd's reason): a warning, never all good", async () => {
		const reason = "COMREC invalid response received";
		expect(expectRule(await callReport("clean", { reason }), "ended-after-last-page")).toEqual({
			rule: "ended-after-last-page",
			status: "warning",
			title:
				"Every page arrived whole (2 pages), the last one as your machine announced it, but the call did not end cleanly. Your fax machine sent a command our receiver did not expect at that point of the page exchange, so the call ended.",
			advice: [
				"Your machine ended the call: look at its transmission report, or its display, for the reason it gives.",
			],
			row: "all pages whole; the call ended with an error",
		});
	});

	test("bad-lines: a page without ECM with bad lines (HylaFAX's line for it, in the ECM-off call's log): ECM and the line, not a lower speed at 9,600", async () => {
		const log = (await text("fixtures/hylafax/ecmoff9600/receiver.log")).replace(
			"10:29:57.33: [14119]: RECV: 400 total lines, 0 bad lines, 0 consecutive bad lines",
			"10:29:57.33: [14119]: RECV: 400 total lines, 34 bad lines, 8 consecutive bad lines",
		);
		const verdict = expectRule(await callReport("ecmoff9600", { log }), "bad-lines");
		expect(verdict.title).toBe(
			"The pages arrived, but damaged: page 1 had 34 bad lines (8 in a row), which HylaFAX filled in by repeating the line above.",
		);
		expect(verdict.advice).toEqual([
			"Turn error correction (ECM) on in your fax machine's settings: damaged parts of a page are then sent again instead of filled in.",
			`The line damaged the call (34 lines arrived damaged): ${LINE_ADVICE}`,
		]);
	});

	test("ecm-resent: a partial page request (HylaFAX's PPR line, in the clean ECM call's log) at 14,400: the speed and the line", async () => {
		const log = (await text("fixtures/hylafax/clean/receiver.log")).replace(
			"10:28:45.87: [14119]: RECV send MCF (message confirmation)",
			"10:28:45.87: [14119]: RECV send PPR (partial page request)\nNov 26 10:28:45.87: [14119]: RECV send MCF (message confirmation)",
		);
		const verdict = expectRule(await callReport("clean", { log }), "ecm-resent");
		expect(verdict.title).toBe(
			"The pages arrived complete, but the line damaged data: the receiver asked once for parts of a page again (ECM), so the call took longer.",
		);
		expect(verdict.advice).toEqual([
			SPEED_14400,
			`The line damaged the call (parts of pages were asked for again once): ${LINE_ADVICE}`,
		]);
	});

	test("ecm-off: all pages arrived whole without error correction (sendfax -E -B 9600): good, no advice", async () => {
		const verdict = expectRule(await callReport("ecmoff9600"), "ecm-off");
		expect(verdict).toEqual({
			rule: "ecm-off",
			status: "good",
			title:
				"All good: 2 pages arrived complete, sent without error correction (ECM) at 9,600 bit/s, and HylaFAX counted no damaged line.",
			advice: [],
			row: null,
		});
	});

	test("all-good: the clean call", async () => {
		const verdict = expectRule(await callReport("clean"), "all-good");
		expect(verdict).toEqual({
			rule: "all-good",
			status: "good",
			title: "All good: 2 pages arrived complete.",
			advice: [],
			row: null,
		});
	});

	test("call-not-known: the clean call's file listed without its session log (as the sweep lists it) is never all good", async () => {
		const report = buildReport({
			source: "phone",
			bytes: await bytes("fixtures/hylafax/clean/received.tif"),
			email: null,
			relayedByUs: false,
			hylafax: { log: null, reason: null, callOnly: false },
		});
		expect(expectRule(report, "call-not-known")).toEqual({
			rule: "call-not-known",
			status: "warning",
			title:
				"2 pages arrived, but no session log came with this fax, so whether that is the whole fax is not known.",
			advice: [],
			row: "end of the call not known",
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

	test("email-not-taken: a message refused as too large, or broken off, each kind in its own words and advice", () => {
		const refused = (kind: "too-large" | "lost" | "timeout", bytesCame: number | null) =>
			buildReport({
				source: "email",
				bytes: new Uint8Array(),
				email: null,
				relayedByUs: false,
				reason: "the mail server refused the message",
				refused: { kind, bytes: bytesCame, limitBytes: 62_914_560 },
			});
		const tooLarge = expectRule(refused("too-large", null), "email-not-taken");
		expect([tooLarge.status, tooLarge.row, tooLarge.title]).toEqual([
			"failed",
			"refused: message too large",
			"Your device began sending the test to our mail server, but our mail server refused it as larger than 60 MiB, the most it takes, so nothing of it was kept.",
		]);
		expect(tooLarge.advice[0]).toStartWith("Scan at 200 or 300 dpi rather than 600");
		const lost = verdictOf(refused("lost", 1_234_567));
		expect([lost.row, lost.title]).toEqual([
			"connection lost while sending",
			"Your device began sending the test to our mail server, but the connection ended after 1,234,567 bytes of it, before the message was complete, so nothing of it was kept.",
		]);
		const silent = verdictOf(refused("timeout", null));
		expect([silent.row, silent.title]).toEqual([
			"device stopped sending",
			"Your device began sending the test to our mail server, but your device stopped sending and our mail server gave up waiting, so nothing of it was kept.",
		]);
		// The refusal's own words, not the document's "could not be read".
		expect(refused("lost", 1).problem).toBeUndefined();
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
		expect(expectRule(report, "not-processable")).toMatchObject({
			title: "The test arrived, but it cannot be shown: The PDF is cut short or damaged.",
			row: "document could not be read",
		});
	});

	test("email-refused-elsewhere: sent directly from an address its domain's SPF does not list, unsigned, under DMARC p=reject", async () => {
		const report = await checkedAs({
			spf: "fail",
			spfAligned: false,
			dkim: [],
			dmarc: { result: "fail", policy: "reject" },
			likely: "refuse",
		});
		expect(expectRule(report, "email-refused-elsewhere")).toEqual({
			rule: "email-refused-elsewhere",
			status: "warning",
			title:
				"The test arrived here, but Gmail or Microsoft 365 would likely refuse it: your domain's DMARC policy is reject, the address your device sent from is not in your domain's SPF record, and it is not signed for your domain (DKIM).",
			advice: [
				"Send through your mail provider's authenticated relay (SMTP submission on port 587, with the device's own login and STARTTLS): the provider's servers are in your domain's SPF record and sign with DKIM.",
				"If the device must send directly, list the address it sends from in your domain's SPF record.",
				"Sign its mail with DKIM for your domain: a provider's relay does it for you.",
			],
			row: "real recipients would refuse it",
		});
	});

	test("email-spam-elsewhere: no DMARC, SPF soft fail, unsigned; signed for the domain, only the SPF advice goes", async () => {
		const unsigned = expectRule(
			await checkedAs({
				spf: "softfail",
				spfAligned: false,
				dkim: [],
				dmarc: { result: "none", policy: null },
				likely: "spam",
			}),
			"email-spam-elsewhere",
		);
		expect([unsigned.title, unsigned.row]).toEqual([
			"The test arrived here, but Gmail or Microsoft 365 would likely file it as spam: your domain publishes no DMARC policy, the address your device sent from is not in your domain's SPF record, and it is not signed for your domain (DKIM).",
			"likely spam at real recipients",
		]);
		const failedSignature = verdictOf(
			await checkedAs({
				spf: "pass",
				spfAligned: false,
				dkim: [{ result: "pass", aligned: true }],
				dmarc: { result: "fail", policy: "quarantine" },
				likely: "spam",
			}),
		);
		expect(failedSignature.advice).toHaveLength(1);
		expect(failedSignature.title).toContain("SPF passes only for another domain than your From address's");
	});

	test("all-good with what a real recipient would do: delivered, or could not be checked (never a pass)", async () => {
		const delivered = verdictOf(
			await checkedAs({
				spf: "pass",
				spfAligned: true,
				dkim: [],
				dmarc: { result: "pass", policy: "reject" },
				likely: "deliver",
			}),
		);
		expect([delivered.rule, delivered.title]).toEqual([
			"all-good",
			"All good: the test arrived complete. Gmail or Microsoft 365 would likely deliver it to the inbox.",
		]);
		const unknown = verdictOf(
			await checkedAs({
				spf: "unknown",
				spfAligned: false,
				dkim: [],
				dmarc: { result: "unknown", policy: null },
				likely: "unknown",
			}),
		);
		expect([unknown.rule, unknown.title]).toEqual([
			"all-good",
			"All good: the test arrived complete. Whether Gmail or Microsoft 365 would take it could not be checked (DNS did not answer in time, or gave no usable answer).",
		]);
	});

	test("tiff-not-tiff-f: a T.37 TIFF whose page 2 is a 300 dpi A4 scan's width", async () => {
		const report = await emailReport("t37-tiff-f.eml");
		const scan = await scanFacts(await bytes("fixtures/scans/t37-wide-page2.tif"), "tiff");
		const verdict = expectRule(
			{ ...report, email: report.email && { ...report.email, scan } },
			"tiff-not-tiff-f",
		);
		expect([verdict.title, verdict.row]).toEqual([
			"The Internet fax arrived, but its TIFF is not TIFF-F (RFC 3949), which a fax gateway may refuse: page 2 is 2480 pixels wide; TIFF-F pages are 1728.",
			"not TIFF-F",
		]);
	});

	test("email-clock: a device 3 hours behind our mail server is a time-zone mistake; 7 minutes ahead, a drifting clock", async () => {
		const behind = await emailReport(
			"scan-to-email.eml",
			(message) => message.replace(/^Date: .*$/m, "Date: Fri, 20 Nov 2026 06:15:40 +0100"),
			true,
		);
		expect(expectRule(behind, "email-clock")).toMatchObject({
			title:
				"The test arrived complete, but its time is wrong. The device's clock is 3 hours behind ours: a time zone set wrongly (a local time sent as UTC, or the wrong zone).",
			advice: ["Set the device's time zone (and daylight saving time) to where it stands."],
			row: "device's time zone wrong",
		});
		const ahead = await emailReport(
			"scan-to-email.eml",
			(message) => message.replace(/^Date: .*$/m, "Date: Fri, 20 Nov 2026 09:22:31 +0100"),
			true,
		);
		expect(verdictOf(ahead)).toMatchObject({
			title:
				"The test arrived complete, but its time is wrong. The device's clock is 7 minutes ahead of ours: the clock has drifted, or was never set.",
			row: "device's clock wrong",
		});
		// Within two minutes: no word of it.
		const close = await emailReport(
			"scan-to-email.eml",
			(message) => message.replace(/^Date: .*$/m, "Date: Fri, 20 Nov 2026 09:17:31 +0100"),
			true,
		);
		expect(verdictOf(close).rule).toBe("all-good");
	});

	test("all-good: a scan-to-email PDF and a T.37 TIFF-F", async () => {
		expectRule(await emailReport("scan-to-email.eml"), "all-good");
		expectRule(await emailReport("t37-tiff-f.eml"), "all-good");
	});
});

test("every rule of the table is tested above", () => {
	expect([...tested].sort()).toEqual(VERDICTS.map((rule) => rule.rule).sort());
});
