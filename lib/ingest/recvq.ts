import { fstatSync, readSync } from "node:fs";
import { faxStationId, MAX_INPUT_BYTES } from "../document/index.ts";
import { parseSessionLog } from "../report/index.ts";
import type { ReceivedFile } from "./receive-fax.ts";

// HylaFAX names received faxes recvq/faxNNNNNNNNN.tif, and the log of each
// session log/cNNNNNNNNN after its commid.
export const RECVQ_NAME = /^fax\d+\.tif$/;
export const SESSION_LOG_NAME = /^c\d+$/;

/** One byte past the limit is enough to know the file is too large. */
export const RECVQ_READ_LIMIT = MAX_INPUT_BYTES + 1;
/** A session log of a long call with many ECM blocks is some hundred KiB; past this, the rest is not read. */
export const SESSION_LOG_READ_LIMIT = 2 * 1024 * 1024;

/** The second of the last write of the regular file open on `fd`. */
function lastWrite(fd: number, what: string): number {
	const stat = fstatSync(fd);
	if (!stat.isFile()) throw new Error(`standard input is not the ${what} itself`);
	return Math.floor(stat.mtimeMs / 1000);
}

/**
 * A fax of HylaFAX's receive queue handed over on `fd` (the queue file
 * itself, opened by HylaFAX's user): named by the queue file's name and the
 * second of its last write, since faxgetty's sequence numbers wrap and a name
 * alone may come back for another fax. The last write is the end of the call.
 */
export function recvqReceivedFile(name: string, fd: number, bytes: Uint8Array): ReceivedFile {
	const receivedAt = lastWrite(fd, "queue file");
	return {
		bytes,
		filename: name,
		source: "phone",
		sender: faxStationId(bytes),
		receivedAt,
		receiptKey: `hylafax:${name}:${receivedAt}`,
	};
}

// A line as faxgetty writes its session log: `Nov 26 10:28:30.93: [14119]: …`.
const SESSION_LOG_LINE = /^\w{3} +\d+ \d\d:\d\d:\d\d\.\d\d: \[ *\d+\]: /m;

/**
 * The session log handed over on `fd` beside the queue file, when the
 * hand-over opened one. A file there that holds no line of a session log is
 * none: the descriptor was left open by something else (libfaketime's shared
 * memory is one), and a call read from it would be a call that never was.
 */
export function handedOverSessionLog(fd: number): string | null {
	try {
		if (!fstatSync(fd).isFile()) return null;
	} catch {
		return null;
	}
	const buffer = Buffer.alloc(SESSION_LOG_READ_LIMIT);
	let length = 0;
	for (;;) {
		const read = readSync(fd, buffer, length, buffer.length - length, null);
		if (read === 0 || length + read >= buffer.length) {
			const text = buffer.toString("latin1", 0, length + read);
			return SESSION_LOG_LINE.test(text) ? text : null;
		}
		length += read;
	}
}

/**
 * A call that left no file, its session log handed over on `fd`: named by
 * the log's name and the time its first line gives, timed by the log's last
 * write (the end of the call); null when no fax machine answered it.
 */
export function recvqCall(
	name: string,
	fd: number,
	bytes: Uint8Array,
	reason: string | null,
): ReceivedFile | null {
	const receivedAt = lastWrite(fd, "session log");
	const log = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
	const session = parseSessionLog(log, reason);
	if (!session.faxMachine) return null;
	return {
		bytes: new Uint8Array(),
		filename: null,
		source: "phone",
		sender: session.tsi,
		receivedAt,
		receiptKey: `hylafax-call:${name}:${session.startedAt ?? receivedAt}`,
		hylafax: { log, reason, callOnly: true },
	};
}
