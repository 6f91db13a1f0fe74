// Postfix's log read for the messages to a test address that never arrived
// whole (lib/ingest/postfix-log.ts). The sessions are the lines Debian 12's
// Postfix 3.7 wrote for them on this machine (maillog_file, the watch map's
// WARN); the receivers' test (`npm run test:receivers`) makes them happen for real.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { type MailRefusal, PostfixLogReader } from "../../lib/ingest/index.ts";

const at = (pid: number, text: string) => `Nov 28 20:15:17 vm postfix/smtpd[${pid}]: ${text}`;
const CLIENT = "unknown[192.0.2.7]";
const warn = (pid: number, queue: string, to = "fax@test.example", from = "scanner@dev.example") =>
	at(
		pid,
		`${queue}: warn: RCPT from ${CLIENT}: testfax test address; from=<${from}> to=<${to}> proto=ESMTP helo=<dev.example>`,
	);

/** One SMTP session of one message, as smtpd logs it: `end` its last lines before the disconnect. */
function session(pid: number, queueId: string, end: string[], test = true): string[] {
	return [
		at(pid, `connect from ${CLIENT}`),
		...(test ? [warn(pid, "NOQUEUE")] : []),
		at(pid, `${queueId}: client=${CLIENT}`),
		`Nov 28 20:15:17 vm postfix/cleanup[99]: ${queueId}: message-id=<${queueId}@vm>`,
		...end.map((text) => at(pid, text)),
		at(pid, `disconnect from ${CLIENT} ehlo=1 mail=1 rcpt=1 data=0/1 commands=3/4`),
	];
}

const ENDINGS = {
	tooLarge: (queueId: string) => [`warning: ${queueId}: queue file size limit exceeded`],
	lost: () => [`lost connection after DATA (50064 bytes) from ${CLIENT}`],
	timeout: () => [`timeout after DATA (1024 bytes) from ${CLIENT}`],
	taken: () => [],
	lostAfterTaken: () => [`lost connection after END-OF-MESSAGE from ${CLIENT}`],
} as const;

function readAll(lines: string[]): MailRefusal[] {
	const reader = new PostfixLogReader();
	return lines.map((line) => reader.read(line)).filter((refusal) => refusal !== null);
}

const refusal = (queueId: string, kind: MailRefusal["kind"], bytes: number | null): MailRefusal => ({
	queueId,
	kind,
	bytes,
	sender: "scanner@dev.example",
	recipient: "fax@test.example",
	client: "192.0.2.7",
});

test("each way a message to a test address ends unfinished is read once, with its bytes; a message taken whole is not", () => {
	expect(readAll(session(7, "4jcM0h03tQzD2Py", ENDINGS.tooLarge("4jcM0h03tQzD2Py")))).toEqual([
		refusal("4jcM0h03tQzD2Py", "too-large", null),
	]);
	expect(readAll(session(7, "4jcM394v8fzD2Pv", ENDINGS.lost()))).toEqual([
		refusal("4jcM394v8fzD2Pv", "lost", 50064),
	]);
	expect(readAll(session(7, "4jcM394v8fzD2Pw", ENDINGS.timeout()))).toEqual([
		refusal("4jcM394v8fzD2Pw", "timeout", 1024),
	]);
	expect(readAll(session(7, "4jcM2V6FNBzD2QW", ENDINGS.taken()))).toEqual([]);
	expect(readAll(session(7, "4jcM2V6FNBzD2QX", ENDINGS.lostAfterTaken()))).toEqual([]);
});

test("a message to an address that is not a test address is never read as one, whatever ends it", () => {
	for (const end of [ENDINGS.tooLarge("4jcM0h03tQzD2Pa"), ENDINGS.lost(), ENDINGS.timeout()])
		expect(readAll(session(7, "4jcM0h03tQzD2Pa", end, false))).toEqual([]);
});

test("a second message of a session, after a test message taken whole: broken off to a non-test address, nothing; to a test address, that message", () => {
	const lines = [
		...session(7, "4jcM0h03tQzD2Pb", ENDINGS.taken()).slice(0, -1),
		at(7, `4jcM0h03tQzD2Pc: client=${CLIENT}`),
		at(7, `lost connection after DATA (10 bytes) from ${CLIENT}`),
	];
	expect(readAll(lines)).toEqual([]);
	const again = [
		...session(7, "4jcM0h03tQzD2Pb", ENDINGS.taken()).slice(0, -1),
		warn(7, "NOQUEUE"),
		at(7, `4jcM0h03tQzD2Pe: client=${CLIENT}`),
		at(7, `lost connection after DATA (10 bytes) from ${CLIENT}`),
	];
	expect(readAll(again)).toEqual([refusal("4jcM0h03tQzD2Pe", "lost", 10)]);
});

test("a test recipient after another one names the message by its queue id; the null sender reads as none", () => {
	const lines = [
		at(8, `connect from ${CLIENT}`),
		at(8, `4jcM0h03tQzD2Pd: client=${CLIENT}`),
		warn(8, "4jcM0h03tQzD2Pd", "fax@test.example", ""),
		warn(8, "4jcM0h03tQzD2Pd", "fax2@test.example", ""),
		at(8, `lost connection after BDAT (7 bytes) from ${CLIENT}`),
	];
	expect(readAll(lines)).toEqual([{ ...refusal("4jcM0h03tQzD2Pd", "lost", 7), sender: null }]);
});

test("property: sessions of many smtpd processes interleaved in any order read as each read alone", () => {
	const kinds = Object.keys(ENDINGS) as (keyof typeof ENDINGS)[];
	const sessions = fc.array(
		fc.record({ kind: fc.constantFrom(...kinds), test: fc.boolean(), noise: fc.boolean() }),
		{ minLength: 1, maxLength: 8 },
	);
	fc.assert(
		fc.property(sessions, fc.infiniteStream(fc.nat()), (planned, picks) => {
			const each = planned.map(({ kind, test, noise }, index) => {
				const queueId = `4jcQ${index}zD2P`;
				const lines = session(100 + index, queueId, ENDINGS[kind](queueId), test);
				// Other programs' lines, and smtpd's about other things, change nothing.
				return noise
					? lines.flatMap((line) => [line, at(100 + index, "warning: hostname does not resolve")])
					: lines;
			});
			const alone = each.flatMap(readAll);
			// Interleaved: each session's lines in their order, the sessions mixed as `picks` says.
			const queues = each.map((lines) => [...lines]);
			const mixed: string[] = [];
			const pick = picks[Symbol.iterator]();
			while (queues.some((lines) => lines.length > 0)) {
				const open = queues.filter((lines) => lines.length > 0);
				mixed.push(open[(pick.next().value as number) % open.length]?.shift() ?? "");
			}
			const sorted = (list: MailRefusal[]) => [...list].sort((a, b) => a.queueId.localeCompare(b.queueId));
			expect(sorted(readAll(mixed))).toEqual(sorted(alone));
			expect(alone.length).toBe(
				planned.filter(({ kind, test }) => test && ["tooLarge", "lost", "timeout"].includes(kind)).length,
			);
		}),
	);
});
