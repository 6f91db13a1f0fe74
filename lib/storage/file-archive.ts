import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import type { FaxStore } from "../db/index.ts";
import { faxFilePaths } from "./fax-files.ts";

// Faxes read from disk per query: a large import may have named a million files.
const ARCHIVE_BATCH = 200;

/**
 * The names in the storage folder, read once: an import of a million records
 * whose files were never copied would otherwise cost a million failed opens
 * at every purge.
 */
async function namesOnDisk(storageDir: string): Promise<Set<string>> {
	const names = await readdir(join(storageDir, "faxes")).catch((error: { code?: unknown }) => {
		if (error.code === "ENOENT") return [];
		throw error;
	});
	return new Set(names);
}

/** Both files' bytes; null when one went meanwhile (`fax remove` beside the purge). */
async function readBoth(paths: { pdf: string; thumbnail: string }) {
	try {
		return { pdf: await Bun.file(paths.pdf).bytes(), thumbnail: await Bun.file(paths.thumbnail).bytes() };
	} catch (error) {
		if ((error as { code?: unknown }).code === "ENOENT") return null;
		throw error;
	}
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
	const onDisk = await namesOnDisk(storageDir);
	for (;;) {
		const slugs = await store.unarchivedSlugs(after, ARCHIVE_BATCH);
		if (slugs.length === 0) return { archived, missing };
		for (const slug of slugs) {
			const paths = faxFilePaths(storageDir, slug);
			if (!onDisk.has(basename(paths.pdf)) || !onDisk.has(basename(paths.thumbnail))) {
				missing++;
				continue;
			}
			const files = await readBoth(paths);
			if (files === null) missing++;
			else if (await store.archiveFiles(slug, files)) archived++;
		}
		after = slugs[slugs.length - 1] ?? after;
	}
}
