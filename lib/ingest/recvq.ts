import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { faxStationId, MAX_INPUT_BYTES } from "../document/index.ts";
import { retentionCutoff } from "../fax/index.ts";
import type { ReceivedFile } from "./receive-fax.ts";

// HylaFAX names received faxes recvq/faxNNNNNNNNN.tif.
const RECVQ_NAME = /^fax\d+\.tif$/;

/**
 * faxgetty holds an exclusive flock on a queue file while the call writes it
 * (FaxServer::getRecvFile), as faxstat and faxinfo know; util-linux's flock
 * asks for a shared one without waiting. Bun has no flock of its own.
 */
function isBeingReceived(path: string): boolean {
	return Bun.spawnSync(["flock", "--nonblock", "--shared", path, "true"]).exitCode !== 0;
}

/** A fax in HylaFAX's receive queue, as its file's name and last write identify it. */
export interface RecvqFax {
	path: string;
	/**
	 * The queue file's name and the second of its last write: faxgetty's
	 * sequence numbers wrap, so a name alone may come back for another fax.
	 */
	receiptKey: string;
	/** The last write: the end of the call. */
	receivedAt: number;
}

export async function recvqFax(path: string): Promise<RecvqFax> {
	const receivedAt = Math.floor((await stat(path)).mtimeMs / 1000);
	return { path, receiptKey: `hylafax:${basename(path)}:${receivedAt}`, receivedAt };
}

/** As recvqFax; null when the file is gone (faxcron cleaned it up meanwhile). */
function recvqFaxIfThere(path: string): Promise<RecvqFax | null> {
	return recvqFax(path).catch((error: { code?: unknown }) => {
		if (error.code === "ENOENT") return null;
		throw error;
	});
}

/** The received file of a queued fax: the TIFF with the station ID faxgetty wrote into it. */
export async function recvqReceivedFile(fax: RecvqFax): Promise<ReceivedFile> {
	const bytes = await Bun.file(fax.path)
		.slice(0, MAX_INPUT_BYTES + 1)
		.bytes();
	return {
		bytes,
		filename: fax.path,
		source: "phone",
		sender: faxStationId(bytes),
		receivedAt: fax.receivedAt,
		receiptKey: fax.receiptKey,
	};
}

/** The faxes of a receive queue received within retention, oldest first. */
export async function recvqFaxes(dir: string, nowSeconds: number): Promise<RecvqFax[]> {
	const names = (await readdir(dir)).filter((name) => RECVQ_NAME.test(name));
	const faxes = await Promise.all(names.map((name) => recvqFaxIfThere(join(dir, name))));
	return faxes
		.filter((fax): fax is RecvqFax => fax !== null && fax.receivedAt >= retentionCutoff(nowSeconds))
		.sort((a, b) => a.receivedAt - b.receivedAt);
}

/** Of `faxes`, those whose call has ended. */
export function completeRecvqFaxes(faxes: RecvqFax[]): RecvqFax[] {
	return faxes.filter((fax) => !isBeingReceived(fax.path));
}
