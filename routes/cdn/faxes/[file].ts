import { retentionCutoff } from "../../../lib/fax/index.ts";
import { definePlainRoute, EMPTY_MESSAGE } from "../../../lib/http/index.ts";
import { faxFilePaths } from "../../../lib/storage/index.ts";

const FILE_NAME = /^(fax_[A-Za-z0-9]+)(\.pdf|-thumb\.jpg)$/;
const TYPES: Record<string, string> = { ".pdf": "application/pdf", "-thumb.jpg": "image/jpeg" };
const missing = { status: 404, body: EMPTY_MESSAGE };

/**
 * GET /cdn/faxes/<slug>.pdf and <slug>-thumb.jpg, where the default
 * CDN_BASE_URL points, so a single instance serves its own files. Only for
 * faxes the API lists: a removed or expired fax's files are gone from here at
 * once, even before the purge deletes them. Paths are built from the slug only.
 */
export const route = definePlainRoute(async ({ params, now }, { store, storageDir }) => {
	const match = FILE_NAME.exec(params.file ?? "");
	if (!match) return missing;
	const [, slug = "", suffix = ""] = match;
	const found = store.lookup(slug, retentionCutoff(now));
	if (found.state !== "found" || found.fax.page_count === null) return missing;
	const paths = faxFilePaths(storageDir, slug);
	const file = Bun.file(suffix === ".pdf" ? paths.pdf : paths.thumbnail);
	if (!(await file.exists())) return missing;
	return { status: 200, body: file, type: TYPES[suffix] ?? "application/octet-stream" };
});
