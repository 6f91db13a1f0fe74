import type { FaxStore } from "../db/index.ts";
import { recvqFaxes } from "../ingest/index.ts";

/**
 * The arrival times (Unix seconds) of the faxes in HylaFAX's receive queue
 * that no receipt names: received within retention and not listed. Only
 * names and times are read, which the folder's mode gives everyone; a call
 * still being received counts too, and is minutes younger than any alert.
 */
export async function recvqWaiting(dir: string, store: FaxStore, nowSeconds: number): Promise<number[]> {
	const faxes = await recvqFaxes(dir, nowSeconds);
	return faxes.filter((fax) => store.receiptSlug(fax.receiptKey) === null).map((fax) => fax.receivedAt);
}
