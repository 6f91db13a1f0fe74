import type { FaxStore } from "../db/fax-store.ts";
import { retentionCutoff } from "../fax/retention.ts";
import { faxFilePaths } from "../storage/fax-files.ts";

/** The path the default CDN_BASE_URL points at, so a single instance serves its own files. */
export const FAX_FILES_PATH = "/cdn/faxes/:file";

const FILE_NAME = /^(fax_[A-Za-z0-9]+)(\.pdf|-thumb\.jpg)$/;
const TYPES: Record<string, string> = { ".pdf": "application/pdf", "-thumb.jpg": "image/jpeg" };

export type FileAnswer = { status: 200; file: Blob; type: string } | { status: 404 };

/**
 * Serves `<slug>.pdf` and `<slug>-thumb.jpg` from STORAGE_DIR for faxes the API
 * lists; a removed or expired fax's files are gone from here at once, even
 * before the purge deletes them. Paths are built from the slug only.
 */
export async function serveFaxFile(
	name: string,
	now: number,
	store: FaxStore,
	storageDir: string,
): Promise<FileAnswer> {
	const match = FILE_NAME.exec(name);
	if (!match) return { status: 404 };
	const [, slug = "", suffix = ""] = match;
	const found = store.lookup(slug, retentionCutoff(now));
	if (found.state !== "found" || found.fax.page_count === null) return { status: 404 };
	const paths = faxFilePaths(storageDir, slug);
	const file = Bun.file(suffix === ".pdf" ? paths.pdf : paths.thumbnail);
	if (!(await file.exists())) return { status: 404 };
	return { status: 200, file, type: TYPES[suffix] ?? "application/octet-stream" };
}
