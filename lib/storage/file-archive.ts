import type { FaxStore } from "../db/index.ts";
import { faxFilePaths } from "./fax-files.ts";

// Faxes read from disk per query: a large import may have named a million files.
const ARCHIVE_BATCH = 200;

async function readIfThere(path: string): Promise<Uint8Array | null> {
	const file = Bun.file(path);
	return (await file.exists()) ? file.bytes() : null;
}

/**
 * Copies into the database the files of processed faxes that have them on
 * disk only: those of `fax import` and the demo (which place files beside
 * the rows they import) and those stored before schema version 5; `fax
 * ingest` puts the bytes in with the row itself. Files not on disk are
 * counted as missing; a second run copies nothing new.
 */
export async function archiveFaxFiles(
	store: FaxStore,
	storageDir: string,
): Promise<{ archived: number; missing: number }> {
	let archived = 0;
	let missing = 0;
	let after = "";
	for (;;) {
		const slugs = store.unarchivedSlugs(after, ARCHIVE_BATCH);
		if (slugs.length === 0) return { archived, missing };
		for (const slug of slugs) {
			const paths = faxFilePaths(storageDir, slug);
			const pdf = await readIfThere(paths.pdf);
			const thumbnail = await readIfThere(paths.thumbnail);
			if (pdf === null || thumbnail === null) missing++;
			else if (await store.archiveFiles(slug, { pdf, thumbnail })) archived++;
		}
		after = slugs[slugs.length - 1] ?? after;
	}
}
