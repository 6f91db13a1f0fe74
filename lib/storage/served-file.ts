import type { FaxFileKind, FaxStore } from "../db/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { StoredFile } from "../http/index.ts";
import { faxFilePaths } from "./fax-files.ts";

// What one read of a file from the database fetches: a 40 MiB PDF is sent in
// 40 reads, and a download holds at most about one of them in memory.
export const DATABASE_CHUNK_BYTES = 1 << 20;

/**
 * The bytes from `start` to `end` (included) read from the database a chunk
 * at a time as the client takes them. A file deleted meanwhile (removed,
 * purged) ends the answer short, which its Content-Length tells the client.
 */
function databaseBytes(store: FaxStore, slug: string, kind: FaxFileKind, start: number, end: number) {
	let offset = start;
	return new ReadableStream<Uint8Array>(
		{
			async pull(controller) {
				if (offset > end) return controller.close();
				const length = Math.min(DATABASE_CHUNK_BYTES, end + 1 - offset);
				const bytes = await store.fileSlice(slug, kind, offset, length);
				if (bytes === null || bytes.length !== length) {
					return controller.error(new Error(`the ${kind} of ${slug} is gone from the database`));
				}
				controller.enqueue(bytes);
				offset += length;
			},
		},
		{ highWaterMark: 0 },
	);
}

/**
 * A live fax's PDF or thumbnail as the CDN path serves it: from this host's
 * STORAGE_DIR when the file is there (sent with sendfile), else from the
 * database, where ingest keeps the bytes beside the row (schema 5), so a host
 * that never ingested serves every fax. Its validators are the fax's
 * `received_at` and the file's size, the same on every host; null when
 * neither has the file.
 */
export async function servedFaxFile(
	store: FaxStore,
	storageDir: string,
	fax: FaxRow,
	kind: FaxFileKind,
): Promise<StoredFile | null> {
	const paths = faxFilePaths(storageDir, fax.slug);
	const file = Bun.file(kind === "pdf" ? paths.pdf : paths.thumbnail);
	const modifiedMs = fax.received_at * 1000;
	if (await file.exists()) {
		const size = file.size;
		return new StoredFile(size, modifiedMs, (start, end) =>
			start === 0 && end === size - 1 ? file : file.slice(start, end + 1),
		);
	}
	const size = await store.fileSize(fax.slug, kind);
	if (size === null) return null;
	return new StoredFile(size, modifiedMs, (start, end) => {
		if (end - start + 1 > DATABASE_CHUNK_BYTES) return databaseBytes(store, fax.slug, kind, start, end);
		// One read, as a Blob: Bun sends its Content-Length, which it drops for a stream (Workarounds).
		return store
			.fileSlice(fax.slug, kind, start, end - start + 1)
			.then((bytes) => new Blob([bytes ?? new Uint8Array()]));
	});
}
