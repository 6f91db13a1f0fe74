/**
 * Real calls between the two iaxmodems of the receivers host, with the
 * impairments a tester's line has: a sender that stops (its faxsend killed at
 * a point of the T.30 session), a speed forced down, ECM off. HylaFAX's
 * session logs of each call are read back from its spool.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SPOOL, sh, until } from "./receivers.ts";

export const LOG_DIR = join(SPOOL, "log");

/** The session logs (log/cNNNNNNNNN) there are now. */
export function sessionLogNames(): Set<string> {
	return new Set(readdirSync(LOG_DIR).filter((name) => /^c\d+$/.test(name)));
}

/** Queues `tiff` on the sending modem with sendfax's `options` (before -d, which takes none after it); one try. */
export function sendFaxWith(tiff: string, options: string[] = []): string {
	const out = sh([
		"sendfax",
		"-n",
		"-t",
		"1",
		"-T",
		"1",
		...options,
		"-h",
		"ttyIAX1@localhost",
		"-d",
		"5550000",
		tiff,
	]);
	return /request id is (\d+)/.exec(out)?.[1] ?? "";
}

const readLog = (name: string) => {
	const path = join(LOG_DIR, name);
	return existsSync(path) ? readFileSync(path, "latin1") : "";
};

/** The new session log, of those not in `before`, whose text matches `pattern`. */
export function newLog(before: Set<string>, pattern: RegExp): string | undefined {
	return [...sessionLogNames()].find((name) => !before.has(name) && pattern.test(readLog(name)));
}

/**
 * Kills the sending faxsend once the sender's session log (the new log that
 * dialled) matches `when`: the line stays up, as it does when a fax machine
 * stops answering, and the receiver is left to time out. Its process id is
 * found as it dials, so the kill itself is one system call: a page is about a
 * second on the line, and a loaded machine must not let it through.
 */
export async function killSenderWhen(
	before: Set<string>,
	when: RegExp,
	timeoutMs = 120_000,
): Promise<string> {
	const sender = await until(() => newLog(before, /SEND FAX: JOB/), timeoutMs, 20);
	const pid = Number(sh(["pgrep", "-n", "-x", "faxsend"]).trim());
	await until(() => (when.test(readLog(sender)) ? true : undefined), timeoutMs, 2);
	process.kill(pid, "SIGKILL");
	return sender;
}

/** The receiving session log of the call (the new log of ttyIAX0) once faxgetty has ended it. */
export async function receiverLog(before: Set<string>, timeoutMs: number): Promise<string> {
	const name = await until(() => newLog(before, /: RECV FAX: begin/), timeoutMs, 100);
	await until(() => (/: SESSION END/.test(readLog(name)) ? true : undefined), timeoutMs, 20);
	return name;
}

/** When the session ended, by the log's own clock (centiseconds): `SESSION END`'s stamp. */
export function sessionEndMs(name: string): number {
	const stamp = /^(\w{3} +\d+ [\d:.]+): \[ *\d+\]: SESSION END/m.exec(readLog(name))?.[1] ?? "";
	return new Date(`${stamp} ${new Date().getFullYear()}`).getTime();
}

/** One record of an xferfaxlog: its kind (RECV, CALL, SEND…), its session and its reason (the 14th field, unquoted). */
export type XferfaxlogRecord = { kind: string; commid: string; reason: string };

/** The records of an xferfaxlog's text, tab-separated as HylaFAX writes them. */
export function xferfaxlogRecords(text: string): XferfaxlogRecord[] {
	return text
		.split("\n")
		.map((line) => line.split("\t"))
		.filter((fields) => fields.length > 13)
		.map((fields) => ({
			kind: fields[1] ?? "",
			commid: fields[2] ?? "",
			reason: (fields[13] ?? "").replace(/^"|"$/g, ""),
		}));
}

/** The reason xferfaxlog's CALL record of the session `commid` gives. */
export function xferfaxlogReason(commid: string): string | null {
	const records = xferfaxlogRecords(readFileSync(join(LOG_DIR, "xferfaxlog"), "latin1"));
	return records.find((record) => record.kind === "CALL" && record.commid === commid)?.reason ?? null;
}

/** The log's text. */
export const sessionLog = readLog;
