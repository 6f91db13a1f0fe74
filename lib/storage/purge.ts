import type { FaxStore } from "../db/index.ts";
import { retentionCutoff } from "../fax/index.ts";
import { deleteFaxFiles, deleteStrayFiles } from "./fax-files.ts";
import { archiveFaxFiles } from "./file-archive.ts";

/**
 * Deletes faxes past retention: rows first (in short transactions, leaving
 * tombstones so their slugs answer 410), then their files; and what a crashed
 * or stopped writer left behind: the hidden rows of an import, the files of
 * an ingest killed before its row was inserted. It also copies into the
 * database the files only the disk holds (archiveFaxFiles), so a replica has
 * them within one purge interval of an import. Running it twice, or
 * beside the API, is harmless: the API already answers 410 for expired faxes.
 */
export async function purgeExpired(
	store: FaxStore,
	storageDir: string,
	nowSeconds: number,
): Promise<string[]> {
	await store.cleanAbandonedImports();
	const slugs = await store.purgeBefore(retentionCutoff(nowSeconds), nowSeconds);
	for (const slug of slugs) await deleteFaxFiles(storageDir, slug);
	await deleteStrayFiles(storageDir, nowSeconds, (slug) => store.hasRow(slug));
	await archiveFaxFiles(store, storageDir);
	return slugs;
}
