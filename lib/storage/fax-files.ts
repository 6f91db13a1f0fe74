import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isSlugShape } from "../fax/index.ts";

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

/** Writes both files under temporary names, then renames them into place. */
export async function writeFaxFiles(
	storageDir: string,
	slug: string,
	files: { pdf: Uint8Array; thumbnail: Uint8Array },
): Promise<void> {
	const paths = faxFilePaths(storageDir, slug);
	await mkdir(join(storageDir, "faxes"), { recursive: true });
	const suffix = `.tmp-${process.pid}`;
	try {
		// Not Bun.write: it copies the bytes first, as much memory again as the PDF.
		await writeFile(paths.pdf + suffix, files.pdf);
		await writeFile(paths.thumbnail + suffix, files.thumbnail);
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
