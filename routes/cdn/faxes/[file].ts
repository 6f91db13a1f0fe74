import { retentionCutoff } from "../../../lib/fax/index.ts";
import {
	definePlainRoute,
	EMPTY_MESSAGE,
	ERROR_MESSAGES,
	messageJson,
	RECEIVED_FILE_POLICY,
	type RouteAnswer,
} from "../../../lib/http/index.ts";
import { servedFaxFile } from "../../../lib/storage/index.ts";

const FILE_NAME = /^(fax_[A-Za-z0-9]+)(\.pdf|-thumb\.jpg)$/;
const TYPES: Record<string, string> = { ".pdf": "application/pdf", "-thumb.jpg": "image/jpeg" };
const missing: RouteAnswer = { status: 404, body: EMPTY_MESSAGE };
// Downloads take seconds unless their clients stall; a retry soon finds a place.
const busy: RouteAnswer = {
	status: 503,
	body: messageJson(ERROR_MESSAGES.unavailable),
	headers: { "retry-after": "5" },
};

/**
 * GET /cdn/faxes/<slug>.pdf and <slug>-thumb.jpg, where the default
 * CDN_BASE_URL points, so a single instance serves its own files. Only for
 * faxes the API lists: a removed or expired fax's files are gone from here at
 * once, even before the purge deletes them. Paths are built from the slug only.
 *
 * The file is the one received, as it was received, so it is sent as a
 * sandboxed document (RECEIVED_FILE_POLICY), to be shown, under its own name.
 * From this host's STORAGE_DIR, Bun sends it with sendfile(2) as the client's
 * socket takes it (with its validators and ranges: lib/http/file-answer.ts),
 * so a slow client costs neither memory nor time of the event loop, only its
 * connection and an open file. A host without the file on disk (a standby's,
 * one that never ingested) sends it from the database a chunk at a time
 * (lib/storage/served-file.ts), with the same validators. Downloads are
 * bounded: a download is refused while CDN_MAX_DOWNLOADS requests are in
 * flight. Bun reports no download's end to the app, but it counts every
 * request until its answer is sent, and API answers take a millisecond, so
 * the requests in flight are in effect the downloads.
 */
export const route = definePlainRoute(
	async ({ params, now, inFlight }, { store, storageDir, maxDownloads }): Promise<RouteAnswer> => {
		const match = FILE_NAME.exec(params.file ?? "");
		if (!match) return missing;
		const [, slug = "", suffix = ""] = match;
		const found = await store.lookup(slug, retentionCutoff(now));
		if (found.state !== "found" || found.fax.page_count === null) return missing;
		if (inFlight() > maxDownloads) return busy;
		const file = await servedFaxFile(store, storageDir, found.fax, suffix === ".pdf" ? "pdf" : "thumbnail");
		if (file === null) return missing;
		return {
			status: 200,
			body: file,
			type: TYPES[suffix] ?? "application/octet-stream",
			headers: {
				"content-security-policy": RECEIVED_FILE_POLICY,
				"content-disposition": `inline; filename="${slug}${suffix}"`,
			},
		};
	},
);
