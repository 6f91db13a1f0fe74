// Real calls over a line that lost IAX2 packets (`npm run calls:impaired`,
// 2026-11-26; fixtures/hylafax/loss*): the timeline and the verdict of each,
// against HylaFAX's own lines in its session log (quoted in each test) and
// faxinfo's reading of the received file (faxinfo.txt beside it).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
	type AdviceKey,
	adviceFor,
	buildReport,
	callModel,
	parseSessionLog,
	verdictOf,
} from "../../lib/report/index.ts";

const dir = (call: string) => join(import.meta.dir, "../../fixtures/hylafax", call);
const text = (call: string, file: string) => Bun.file(join(dir(call), file)).text();

/** The report ingest builds of the call: with its file, or (none kept) as a call only. */
async function report(call: string, reason: string | null) {
	const file = Bun.file(join(dir(call), "received.tif"));
	const withFile = await file.exists();
	return buildReport({
		source: "phone",
		bytes: withFile ? await file.bytes() : new Uint8Array(),
		email: null,
		relayedByUs: false,
		...(withFile ? {} : { reason: "the call ended before its first page" }),
		hylafax: { log: await text(call, "receiver.log"), reason, callOnly: !withFile },
	});
}

/** faxinfo's `Name: value` lines. */
async function faxinfo(call: string): Promise<Record<string, string>> {
	const lines = (await text(call, "faxinfo.txt")).split("\n").slice(1);
	return Object.fromEntries(
		lines.map((line) =>
			line
				.trim()
				.split(/: (.*)/)
				.slice(0, 2),
		),
	);
}

/** The report's reading of the received file is faxinfo's, which reads `expected`. */
async function expectAsFaxinfo(call: string, built: Awaited<ReturnType<typeof report>>, expected: string[]) {
	const info = await faxinfo(call);
	expect([info.Pages, info.SignalRate, info.ErrCorrect, info.DataFormat]).toEqual(expected);
	expect(built.document).toMatchObject({ format: "TIFF", pages: Number(info.Pages) });
	expect(built.session).toMatchObject({
		signalRate: info.SignalRate,
		ecm: info.ErrCorrect === "Yes",
		dataFormat: info.DataFormat,
	});
}

describe("1 % loss, ECM off (loss1noecm): the speed fell back, page 1 arrived with bad lines", () => {
	test("the timeline: a failed training at 14,400, one at 12,000 that succeeded, each page's lines and answers", async () => {
		const session = parseSessionLog(await text("loss1noecm", "receiver.log"));
		// "RECV training at v.17 14400 bit/s", "RECV: TCF 2748 bytes, 2% non-zero, 1765 zero-run", "TRAINING failed", …
		expect(session.trainings).toEqual([
			{ at: "14:32:32", rate: "v.17 14400 bit/s", tcf: "2748 bytes, 2% non-zero, 1765 zero-run", ok: false },
			{ at: "14:32:38", rate: "v.17 12000 bit/s", tcf: "2319 bytes, 3% non-zero, 1909 zero-run", ok: true },
		]);
		expect(session.lines).toContain("14:32:35 RECV: reject TCF (zero run too short, min 1800)");
		expect(session.requested[0]).toBe("12000 bit/s");
		// "RECV: 401 total lines, 3 bad lines, 3 consecutive bad lines", MPS, MCF, "page 1 in 0:00:21"; then 400, 0, 0, EOP, MCF, "page 2 in 0:00:04".
		expect(
			session.pages.map(({ page, lines, postPage, answer, time }) => ({
				page,
				lines,
				postPage,
				answer,
				time,
			})),
		).toEqual([
			{
				page: 1,
				lines: { total: 401, bad: 3, consecutiveBad: 3 },
				postPage: "MPS",
				answer: "MCF",
				time: "0:00:21",
			},
			{
				page: 2,
				lines: { total: 400, bad: 0, consecutiveBad: 0 },
				postPage: "EOP",
				answer: "MCF",
				time: "0:00:04",
			},
		]);
		expect(session.ending).toEqual({ clean: true, reason: null, at: "14:32:52" });
	});

	test("the report reads the file as faxinfo does, and the verdict names page 1's bad lines", async () => {
		const built = await report("loss1noecm", null);
		await expectAsFaxinfo("loss1noecm", built, ["2", "12000 bit/s", "No", "2-D MR"]);
		// 12,000 bit/s without ECM: a lower speed, ECM and the line all fit; the call did none of them.
		expect(verdictOf(built)).toEqual({
			rule: "bad-lines",
			status: "warning",
			title:
				"The pages arrived, but damaged: page 1 had 3 bad lines (3 in a row), which HylaFAX filled in by repeating the line above.",
			advice: [
				"This call ran at 12,000 bit/s (V.17): set your fax machine to 9,600 bit/s (on some machines “overseas mode” or “V.29”), which VoIP lines carry far more reliably.",
				"Turn error correction (ECM) on in your fax machine's settings: damaged parts of a page are then sent again instead of filled in.",
				"The line damaged the call (3 lines arrived damaged): on a VoIP line, ask your provider for T.38, or for G.711 without compression and with echo cancellation off for fax; or try from a direct analogue line.",
			],
			row: "arrived with damaged lines",
		});
	});
});

describe("1 % loss, ECM on (loss1ecm): damaged DCSs, a fallback to 7,200 bit/s, page 2's frames asked for again", () => {
	test("the timeline: one training at V.29 7,200 after three damaged DCSs, page 2's partial page requests and frames", async () => {
		const session = parseSessionLog(await text("loss1ecm", "receiver.log"));
		// "FCS error" and "RECV send CRP (command repeat)" three times, then "REMOTE wants 7200 bit/s".
		expect(session.lines.filter((line) => / (FCS error|RECV send CRP)/.test(line))).toHaveLength(6);
		expect(session.trainings).toEqual([
			{ at: "14:37:39", rate: "v.29 7200 bit/s", tcf: "1531 bytes, 2% non-zero, 1350 zero-run", ok: true },
		]);
		// Page 2: "received 3 frames", PPR, "received 3 frames", PPR, "received 1 frames", MCF; "page 2 in 0:00:15".
		expect(
			session.pages.map(({ page, frames, pprs, postPage, answer, time }) => ({
				page,
				frames,
				pprs,
				postPage,
				answer,
				time,
			})),
		).toEqual([
			{ page: 1, frames: 3, pprs: 0, postPage: "MPS", answer: "MCF", time: "0:00:36" },
			{ page: 2, frames: 7, pprs: 2, postPage: "EOP", answer: "MCF", time: "0:00:15" },
		]);
		expect(session.ending).toEqual({ clean: true, reason: null, at: "14:38:05" });
	});

	test("the report reads the file as faxinfo does, and the verdict names the requests sent again", async () => {
		const built = await report("loss1ecm", null);
		await expectAsFaxinfo("loss1ecm", built, ["2", "7200 bit/s", "Yes", "2-D MMR"]);
		// The training line: "RECV training at v.29 7200 bit/s".
		expect(built.session?.modulation).toBe("V.29");
		// 7,200 bit/s with ECM: only the line's advice fits, with its evidence.
		expect(verdictOf(built)).toEqual({
			rule: "ecm-resent",
			status: "warning",
			title:
				"The pages arrived complete, but the line damaged data: the receiver asked 2 times for parts of a page again (ECM), so the call took longer.",
			advice: [
				"The line damaged the call (4 of its signals arrived damaged, parts of pages were asked for again 2 times): on a VoIP line, ask your provider for T.38, or for G.711 without compression and with echo cancellation off for fax; or try from a direct analogue line.",
			],
			row: "arrived after repeats",
		});
	});
});

describe("a handshake that failed on a lossy line: HylaFAX's reason is the ending, and the verdict gives the evidence", () => {
	// loss3noecm: our DIS, a damaged frame, our CRPs, then "RECV recv DCN (disconnect)" and
	// "RECV FAX: RSPREC error/got DCN (sender abort)"; loss3ecm: no DCS ever came,
	// "RECV FAX: No sender protocol (T.30 T1 timeout)". No training took place: no speed advice.
	test.each([
		[
			"loss3noecm",
			"RSPREC error/got DCN (sender abort)",
			"14:33:24",
			" 1 of its signals arrived damaged; we asked for them again 2 times. Your fax machine gave up and ended the call while the two machines were still agreeing how to send.",
			["line", "sender-report"],
		],
		[
			"loss3ecm",
			"No sender protocol (T.30 T1 timeout)",
			"14:31:31",
			" 1 of its signals arrived damaged; we asked for them again once. Our receiver announced itself as a fax machine again and again, but no usable answer from a sending fax machine came before its time limit ran out.",
			["line"],
		],
	] as [string, string, string, string, AdviceKey[]][])("%s: %s", async (call, reason, at, said, advice) => {
		const session = parseSessionLog(await text(call, "receiver.log"));
		expect([session.faxMachine, session.trainings, session.pages]).toEqual([true, [], []]);
		expect(session.ending).toEqual({ clean: false, reason, at });
		const built = await report(call, null);
		const verdict = verdictOf(built);
		expect([verdict.rule, verdict.title, verdict.row]).toEqual([
			"handshake-failed",
			`Your fax machine called, but the two machines never agreed how to send, so no page arrived.${said}`,
			"call failed before page 1",
		]);
		const model = callModel(built);
		expect(model === null ? [] : adviceFor(model).map((item) => item.key)).toEqual(advice);
	});
});
