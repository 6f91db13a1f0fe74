// HylaFAX's session logs of real calls between two iaxmodems
// (fixtures/hylafax/README.md), read field by field as the log says them.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseSessionLog } from "../../lib/report/index.ts";

const log = (call: string) =>
	Bun.file(join(import.meta.dir, "../../fixtures/hylafax", call, "receiver.log")).text();

const ECM_14400 = [
	"14400 bit/s",
	"A4 page width (215 mm)",
	"unlimited page length",
	"3.85 line/mm",
	"2-D MMR",
	"T.30 Annex A, 256-byte ECM",
];

describe("the T.30 session of a real call, from HylaFAX's session log", () => {
	test("a clean call with ECM: what the sender asked for, its training, each page's ECM frames and answers, the DCN", async () => {
		const session = parseSessionLog(await log("clean"));
		expect(session).toMatchObject({
			faxMachine: true,
			startedAt: "Nov 26 10:28:30.93",
			tsi: "IAXmodem",
			requested: ECM_14400,
			trainings: [
				{ at: "10:28:39", rate: "v.17 14400 bit/s", tcf: "2748 bytes, 1% non-zero, 2700 zero-run", ok: true },
			],
			pages: [
				{ page: 1, at: "10:28:44", time: "0:00:11", frames: 3, pprs: 0, postPage: "MPS", answer: "MCF" },
				{ page: 2, at: "10:28:47", time: "0:00:04", frames: 3, pprs: 0, postPage: "EOP", answer: "MCF" },
			],
			ending: { clean: true, reason: null, at: "10:28:51" },
		});
		expect(session.pages.map((page) => page.lines)).toEqual([
			{ total: 400, bad: 0, consecutiveBad: 0 },
			{ total: 400, bad: 0, consecutiveBad: 0 },
		]);
	});

	test("ECM off at 9,600 bit/s (sendfax -E -B 9600): V.29 training, each page's lines counted, no frames", async () => {
		const session = parseSessionLog(await log("ecmoff9600"));
		expect(session.requested).toEqual([
			"9600 bit/s",
			"A4 page width (215 mm)",
			"unlimited page length",
			"3.85 line/mm",
			"2-D MR",
		]);
		expect(session.trainings.map((training) => [training.rate, training.ok])).toEqual([
			["v.29 9600 bit/s", true],
		]);
		expect(session.pages).toEqual([
			{
				page: 1,
				at: "10:29:55",
				time: "0:00:10",
				frames: 0,
				pprs: 0,
				lines: { total: 400, bad: 0, consecutiveBad: 0 },
				postPage: "MPS",
				answer: "MCF",
			},
			{
				page: 2,
				at: "10:30:00",
				time: "0:00:05",
				frames: 0,
				pprs: 0,
				lines: { total: 400, bad: 0, consecutiveBad: 0 },
				postPage: "EOP",
				answer: "MCF",
			},
		]);
		expect(session.ending.clean).toBe(true);
	});

	test("the sender gone right after training: no page, and HylaFAX's reason", async () => {
		const session = parseSessionLog(await log("killtrain"));
		expect(session).toMatchObject({ faxMachine: true, tsi: "IAXmodem", requested: ECM_14400, pages: [] });
		expect(session.trainings.map((training) => training.ok)).toEqual([true]);
		expect(session.ending).toEqual({
			clean: false,
			reason: "Failed to properly detect high-speed data carrier.",
			at: "10:31:22",
		});
	});

	test("a call that no fax machine answered (the caller silent): no frame came, so it is no fax call", async () => {
		const session = parseSessionLog(await log("killanswer"));
		expect(session).toMatchObject({ faxMachine: false, tsi: null, trainings: [], pages: [] });
		expect(session.ending.reason).toBe("Failure to receive silence (synchronization failure).");
	});

	test("a caller whose V.21 carrier came but no whole frame (it hung up sending its TSI): a fax machine answered", async () => {
		// Seen in CI: the sender killed while its TSI was on the line; the receiver's
		// AT+FRH=3 got CONNECT, then no frame. A silent caller gets no CONNECT there.
		const session = parseSessionLog(await log("killtsi"));
		expect(session).toMatchObject({ faxMachine: true, tsi: null, trainings: [], pages: [] });
		expect(session.ending.reason).toBe("Failure to receive silence (synchronization failure).");
	});

	test("FaxRcvdCmd's reason, when given, is the reason", async () => {
		const session = parseSessionLog(await log("clean"), "COMREC received DCN (sender abort)");
		expect(session.ending).toEqual({
			clean: false,
			reason: "COMREC received DCN (sender abort)",
			at: "10:28:51",
		});
	});

	test("the lines kept: the session's, not the modem chatter, the caller ID or the command faxgetty ran; the TSI masked, also in its frame", async () => {
		const text = (await log("clean"))
			.replaceAll('"IAXmodem"', '"+1 555 0100"')
			.replaceAll("from IAXmodem", "from +1 555 0100");
		const session = parseSessionLog(text);
		expect(session.tsi).toBe("+1 555 0100");
		const lines = session.lines.join("\n");
		expect(lines).not.toContain("555 0100");
		expect(lines).not.toContain("15550100");
		expect(lines).not.toContain("faxrcvd");
		expect(lines).not.toContain("AT+F");
		expect(session.lines).toContain('10:28:38 REMOTE TSI "+*****100"');
		expect(session.lines).toContain(
			"10:28:38 --> HDLC<25:FF C0 C2 ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** ** **>",
		);
		expect(session.lines[0]).toBe("10:28:30 SESSION BEGIN 000000002 18005551212");
		expect(session.lines.at(-1)).toBe("10:28:51 SESSION END");
	});
});

test("the sender gone after page 1's confirmation (a 2-page fax): page 1 complete, then HylaFAX's reason; the file kept", async () => {
	const session = parseSessionLog(await log("killpage2"));
	expect(session.pages).toEqual([
		{
			page: 1,
			at: "10:51:37",
			time: "0:00:11",
			frames: 3,
			pprs: 0,
			lines: { total: 400, bad: 0, consecutiveBad: 0 },
			postPage: "MPS",
			answer: "MCF",
		},
	]);
	expect(session.ending).toEqual({
		clean: false,
		reason: "Failed to properly detect high-speed data carrier.",
		at: "10:51:48",
	});
});

test("the sender gone as page 2 began (its V.17 carrier on, no data): page 1 complete, page 2 with nothing, after HylaFAX's own timers (60 s without a frame sync, then no post-page message)", async () => {
	const session = parseSessionLog(await log("killmidpage"));
	expect(
		session.pages.map(({ page, frames, lines, postPage, answer, time }) => ({
			page,
			frames,
			lines,
			postPage,
			answer,
			time,
		})),
	).toEqual([
		{
			page: 1,
			frames: 3,
			lines: { total: 400, bad: 0, consecutiveBad: 0 },
			postPage: "MPS",
			answer: "MCF",
			time: "0:00:11",
		},
		{
			page: 2,
			frames: 0,
			lines: { total: 0, bad: 0, consecutiveBad: 0 },
			postPage: null,
			answer: null,
			time: null,
		},
	]);
	expect(session.ending).toEqual({
		clean: false,
		reason: "Write error to file recvq/fax000000069.tif",
		at: "14:10:51",
	});
	expect(session.lines).toContain("14:10:06 Timeout awaiting synchronization sequence");
	expect(session.lines).toContain("14:10:51 RECV keeping unconfirmed page");
});
