import type { FaxStore } from "../db/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { deleteFaxFiles, writeFaxFiles } from "../storage/index.ts";
import { documentOf, emailOf, type ReceivedFile, reportOf, uniqueSlug } from "./receive-fax.ts";

export type Reprocessed =
	/** Listed again as `fax`; the slug it replaces answers 410 from now on. */
	| { state: "listed"; fax: FaxRow }
	/** Still not processable from its original: the document itself is at fault. */
	| { state: "not-processable"; reason: string }
	/** No live fax of that slug keeps an original (processed, removed, imported, or unknown). */
	| { state: "no-original" };

/**
 * Processes a not-processable fax again from the file it was received as
 * (kept for its 30 days), for a fax listed wrong while the host was broken. A
 * fax listed is never changed in place (clients keep what they were given), so
 * a success lists it under a new slug, with its sender and received_at, and
 * removes the old one in the same transaction; its receipt keys follow it.
 * A host still broken throws, as an ingest does.
 */
export async function reprocessFax(
	slug: string,
	store: FaxStore,
	storageDir: string,
	now: number,
): Promise<Reprocessed> {
	const kept = await store.original(slug);
	if (kept === null) return { state: "no-original" };
	const { fax: old, file: original } = kept;
	const file: ReceivedFile = {
		bytes: original.bytes,
		filename: original.filename,
		source: old.source,
		sender: old.sender,
		receivedAt: old.received_at,
		relayed: original.relayed ? { queueId: null } : undefined,
	};
	const email = await emailOf(file);
	const result = await documentOf(file, email);
	if (!result.ok) return { state: "not-processable", reason: result.reason };
	const fax = {
		...old,
		slug: await uniqueSlug(store),
		page_count: result.pageCount,
		file_size: result.pdf.byteLength,
	};
	const files = { pdf: result.pdf, thumbnail: result.thumbnail };
	await writeFaxFiles(storageDir, fax.slug, files);
	let relisted = false;
	try {
		relisted = await store.relist(slug, fax, { files, report: await reportOf(file, email, undefined) }, now);
	} finally {
		if (!relisted) await deleteFaxFiles(storageDir, fax.slug);
	}
	return relisted ? { state: "listed", fax } : { state: "no-original" };
}
