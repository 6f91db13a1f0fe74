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
 * stops answering, and the receiver is left to time out.
 */
export async function killSenderWhen(
	before: Set<string>,
	when: RegExp,
	timeoutMs = 120_000,
): Promise<string> {
	const sender = await until(() => newLog(before, /SEND FAX: JOB/), timeoutMs, 20);
	await until(() => (when.test(readLog(sender)) ? true : undefined), timeoutMs, 5);
	const pid = sh(["pgrep", "-n", "-x", "faxsend"]).trim();
	process.kill(Number(pid), "SIGKILL");
	return sender;
}

/** The receiving session log of the call (the new log of ttyIAX0) once faxgetty has closed it. */
export async function receiverLog(before: Set<string>, timeoutMs: number): Promise<string> {
	const name = await until(() => newLog(before, /ANSWER|RECV/), timeoutMs, 100);
	await until(() => (/SESSION END/.test(readLog(name)) ? true : undefined), timeoutMs, 100);
	return name;
}

/** The log's text. */
export const sessionLog = readLog;
