import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FaxStore } from "../db/index.ts";
import { retentionCutoff } from "../fax/index.ts";
import { RECVQ_NAME } from "../ingest/index.ts";

/** A queue file's arrival (its last write, in Unix seconds); null when it went meanwhile. */
async function lastWrite(path: string): Promise<number | null> {
	try {
		return Math.floor((await stat(path)).mtimeMs / 1000);
	} catch (error) {
		if ((error as { code?: unknown }).code === "ENOENT") return null;
		throw error;
	}
}

/**
 * The arrival times (Unix seconds) of the faxes in HylaFAX's receive queue
 * that no receipt names: received within retention and not listed. A listed
 * fax leaves the folder for recvq/listed/ (deploy/receivers/hylafax/faxrcvd),
 * so what stays is what the hand-over has not done yet; the receipt is asked
 * too, for a hand-over that listed the fax and was killed before the move.
 * Only names and times are read, which the folder's mode gives everyone; a
 * call still being received counts too, and is minutes younger than any alert.
 */
export async function recvqWaiting(dir: string, store: FaxStore, nowSeconds: number): Promise<number[]> {
	const names = (await readdir(dir)).filter((name) => RECVQ_NAME.test(name));
	const waiting: number[] = [];
	for (const name of names) {
		const receivedAt = await lastWrite(join(dir, name));
		if (receivedAt === null || receivedAt < retentionCutoff(nowSeconds)) continue;
		// The key `fax receive-hylafax` gives the same file (lib/ingest/recvq.ts).
		if ((await store.receiptSlug(`hylafax:${name}:${receivedAt}`)) === null) waiting.push(receivedAt);
	}
	return waiting.sort((a, b) => a - b);
}
