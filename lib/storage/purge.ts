import type { FaxStore } from "../db/index.ts";
import { retentionCutoff } from "../fax/index.ts";
import { deleteFaxFiles, deleteStrayFiles } from "./fax-files.ts";
import { archiveFaxFiles } from "./file-archive.ts";

/** What one purge did: the faxes it removed, or why this process left the database to another. */
export type PurgeOutcome = { removed: string[] } | { skipped: "standby" | "taken" };

/**
 * Deletes faxes past retention: rows first (in short transactions, leaving
 * tombstones so their slugs answer 410), then their files; and what a crashed
 * or stopped writer left behind: the hidden rows of an import, the files of
 * an ingest killed before its row was inserted. It also copies into the
 * database the files only the disk holds (archiveFaxFiles), so a replica has
 * them within one purge interval of an import. Running it twice, or
 * beside the API, is harmless: the API already answers 410 for expired faxes.
 *
 * The database's part takes turns (FaxStore.purgeTurn): on PostgreSQL one
 * process of the cluster does it at a time, and none on a standby. The
 * host's stray files are every host's own to delete, turn or not; the files
 * of faxes another host purged are among them.
 */
export async function purgeExpired(
	store: FaxStore,
	storageDir: string,
	nowSeconds: number,
): Promise<PurgeOutcome> {
	const turn = await store.purgeTurn();
	let outcome: PurgeOutcome;
	if (typeof turn === "string") outcome = { skipped: turn };
	else {
		try {
			await store.cleanAbandonedImports();
			const removed = await store.purgeBefore(retentionCutoff(nowSeconds), nowSeconds);
			for (const slug of removed) await deleteFaxFiles(storageDir, slug);
			await archiveFaxFiles(store, storageDir);
			outcome = { removed };
		} finally {
			await turn();
		}
	}
	await deleteStrayFiles(storageDir, nowSeconds, (slug) => store.hasRow(slug));
	return outcome;
}
