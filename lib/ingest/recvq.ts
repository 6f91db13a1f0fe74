import { fstatSync } from "node:fs";
import { faxStationId, MAX_INPUT_BYTES } from "../document/index.ts";
import type { ReceivedFile } from "./receive-fax.ts";

// HylaFAX names received faxes recvq/faxNNNNNNNNN.tif.
export const RECVQ_NAME = /^fax\d+\.tif$/;

/**
 * A fax of HylaFAX's receive queue handed over on `fd` (the queue file
 * itself, opened by HylaFAX's user): named by the queue file's name and the
 * second of its last write, since faxgetty's sequence numbers wrap and a name
 * alone may come back for another fax. The last write is the end of the call.
 */
export function recvqReceivedFile(name: string, fd: number, bytes: Uint8Array): ReceivedFile {
	const stat = fstatSync(fd);
	if (!stat.isFile()) throw new Error("standard input is not the queue file itself");
	const receivedAt = Math.floor(stat.mtimeMs / 1000);
	return {
		bytes,
		filename: name,
		source: "phone",
		sender: faxStationId(bytes),
		receivedAt,
		receiptKey: `hylafax:${name}:${receivedAt}`,
	};
}

/** One byte past the limit is enough to know the file is too large. */
export const RECVQ_READ_LIMIT = MAX_INPUT_BYTES + 1;
