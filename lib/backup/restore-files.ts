import type { FaxStore } from "../db/index.ts";
import { writeFaxFiles } from "../storage/index.ts";

/**
 * Writes every fax's PDF and thumbnail from the database back to
 * STORAGE_DIR, as ingest names them; returns how many faxes. Re-running it
 * rewrites the same bytes.
 */
export async function restoreFiles(store: FaxStore, storageDir: string): Promise<number> {
	let restored = 0;
	for await (const { slug, pdf, thumbnail } of store.archivedFiles()) {
		await writeFaxFiles(storageDir, slug, { pdf, thumbnail });
		restored++;
	}
	return restored;
}
