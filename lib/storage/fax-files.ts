import { readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isSlugShape } from "../fax/index.ts";
import { makeSharedDir, shareFile } from "../util/index.ts";

/**
 * The files of a fax live at `<STORAGE_DIR>/faxes/<slug>.pdf` and `<slug>-thumb.jpg`.
 * Paths are built only from slugs of the service's own shape, so no input can
 * choose where a file goes.
 */
export function faxFilePaths(storageDir: string, slug: string): { pdf: string; thumbnail: string } {
	if (!isSlugShape(slug)) throw new Error(`not a fax slug: ${JSON.stringify(slug)}`);
	const dir = join(storageDir, "faxes");
	return { pdf: join(dir, `${slug}.pdf`), thumbnail: join(dir, `${slug}-thumb.jpg`) };
}

const TEMP_MARK = ".tmp-";
/** A fax file under its temporary name, as writeFaxFiles names it. */
const TEMP_FILE = /^fax_[A-Za-z0-9]+(?:\.pdf|-thumb\.jpg)\.tmp-\d+$/;
/** A fax file under its own name; the slug is the first group. */
const FAX_FILE = /^(fax_[A-Za-z0-9]+)(?:\.pdf|-thumb\.jpg)$/;
/**
 * Older than this, a file no row names belongs to no live ingest: an ingest
 * writes its two files within seconds, and inserts its row at most the
 * longest busy timeout (60 s) later.
 */
export const STRAY_FILE_AGE_SECONDS = 3600;

/** Writes both files under temporary names, then renames them into place. */
export async function writeFaxFiles(
	storageDir: string,
	slug: string,
	files: { pdf: Uint8Array; thumbnail: Uint8Array },
): Promise<void> {
	const paths = faxFilePaths(storageDir, slug);
	await makeSharedDir(join(storageDir, "faxes"));
	const suffix = `${TEMP_MARK}${process.pid}`;
	try {
		// Not Bun.write: it copies the bytes first, as much memory again as the PDF.
		await writeFile(paths.pdf + suffix, files.pdf);
		await writeFile(paths.thumbnail + suffix, files.thumbnail);
		await shareFile(paths.pdf + suffix);
		await shareFile(paths.thumbnail + suffix);
		await rename(paths.pdf + suffix, paths.pdf);
		await rename(paths.thumbnail + suffix, paths.thumbnail);
	} catch (error) {
		await deleteFaxFiles(storageDir, slug);
		await rm(paths.pdf + suffix, { force: true });
		await rm(paths.thumbnail + suffix, { force: true });
		throw error;
	}
}

/** Deletes a fax's files; missing files are fine (a not processable fax has none). */
export async function deleteFaxFiles(storageDir: string, slug: string): Promise<void> {
	const paths = faxFilePaths(storageDir, slug);
	await rm(paths.pdf, { force: true });
	await rm(paths.thumbnail, { force: true });
}

/**
 * Deletes what an ingest killed while writing (SIGKILL, a lost container)
 * left behind, once older than STRAY_FILE_AGE_SECONDS: its temporary files,
 * and the files of a fax whose row it never inserted (`hasRow` says which
 * slugs have one). Returns how many. Only names of writeFaxFiles' shape are
 * touched.
 */
export async function deleteStrayFiles(
	storageDir: string,
	nowSeconds: number,
	hasRow: (slug: string) => Promise<boolean>,
): Promise<number> {
	const dir = join(storageDir, "faxes");
	const names = await readdir(dir).catch((error: { code?: unknown }) => {
		if (error.code === "ENOENT") return [];
		throw error;
	});
	let deleted = 0;
	for (const name of names) {
		const slug = FAX_FILE.exec(name)?.[1];
		if (!TEMP_FILE.test(name) && slug === undefined) continue;
		const path = join(dir, name);
		const info = await stat(path).catch(() => null);
		if (info === null || info.mtimeMs / 1000 > nowSeconds - STRAY_FILE_AGE_SECONDS) continue;
		if (!TEMP_FILE.test(name) && slug !== undefined && (await hasRow(slug))) continue;
		await rm(path, { force: true });
		deleted++;
	}
	return deleted;
}
