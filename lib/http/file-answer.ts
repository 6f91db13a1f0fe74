import { noneMatchHits } from "../representation/index.ts";

interface AnswerSet {
	status?: number | string;
	headers: Record<string, string | number>;
}

/** One byte range of a file, both ends included. */
interface ByteRange {
	start: number;
	end: number;
}

const RANGE_SPEC = /^(\d*)-(\d*)$/;
const UNIT = /^bytes=/i;

/**
 * The ranges a `Range` field asks for (RFC 9110 section 14.1.2), or null when
 * it is not a byte range set this server reads: a field it cannot read is
 * ignored, and the whole file is the answer. An unsatisfiable range is kept,
 * with `start` past the end.
 */
function rangesOf(field: string, size: number): ByteRange[] | null {
	if (!UNIT.test(field)) return null;
	const ranges: ByteRange[] = [];
	for (const spec of field.slice(6).split(",")) {
		const match = RANGE_SPEC.exec(spec.trim());
		if (match === null) return null;
		const [, first = "", last = ""] = match;
		if (first === "" && last === "") return null;
		if (first === "") {
			// A suffix: the last `last` bytes; none of them when it is 0.
			const length = Math.min(Number(last), size);
			ranges.push(length === 0 ? { start: size, end: size } : { start: size - length, end: size - 1 });
			continue;
		}
		const start = Number(first);
		const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
		if (last !== "" && Number(last) < start) return null;
		ranges.push({ start, end });
	}
	return ranges;
}

/**
 * A file the CDN path answers with, wherever its bytes are: on this host's
 * disk, or in the database. Its validators come from `modifiedMs` and its
 * size, which every host reads alike from the database, so two hosts give one
 * file the same ETag and Last-Modified whichever of them has it on disk.
 */
export class StoredFile {
	readonly size: number;
	readonly modifiedMs: number;
	/** The bytes from `start` to `end`, both included: a file Bun sends itself (sendfile), a stream, or bytes read. */
	readonly bytes: (start: number, end: number) => Blob | ReadableStream<Uint8Array> | Promise<Blob>;

	constructor(size: number, modifiedMs: number, bytes: StoredFile["bytes"]) {
		this.size = size;
		this.modifiedMs = modifiedMs;
		this.bytes = bytes;
	}
}

/** The file's validators: an ETag from its modification time and size, and its modification time. */
function validatorsOf(file: StoredFile): { etag: string; lastModified: string; modifiedSecond: number } {
	const modifiedSecond = Math.floor(file.modifiedMs / 1000);
	return {
		etag: `"${Math.floor(file.modifiedMs).toString(16)}-${file.size.toString(16)}"`,
		lastModified: new Date(modifiedSecond * 1000).toUTCString(),
		modifiedSecond,
	};
}

/** Whether the request's conditions ask for a 304 (RFC 9110 sections 13.1.2, 13.1.4, 13.2.2). */
function notModified(request: Request, etag: string, modifiedSecond: number): boolean {
	const noneMatch = request.headers.get("if-none-match");
	if (noneMatch !== null) return noneMatchHits(noneMatch, etag);
	const since = Date.parse(request.headers.get("if-modified-since") ?? "");
	return !Number.isNaN(since) && modifiedSecond <= since / 1000;
}

/**
 * Whether a `Range` may be answered (RFC 9110 section 13.1.5): without
 * `If-Range`, or when it names this very file, by its ETag (compared strongly)
 * or by exactly its Last-Modified date.
 */
function rangeAllowed(request: Request, etag: string, lastModified: string): boolean {
	const ifRange = request.headers.get("if-range");
	if (ifRange === null) return true;
	if (ifRange.startsWith('"') || ifRange.startsWith("W/")) return ifRange === etag;
	return ifRange === lastModified;
}

/**
 * The body of a stored file's answer, with its status and fields: 200 with the
 * whole file, 206 with one byte range, 416 for a range past its end, or 304
 * to a condition its validators meet; each with its `ETag` and
 * `Last-Modified`. Only GET reads `Range` (RFC 9110 section 14.2), and a
 * request for more than one range gets the whole file: a 200 is always a
 * valid answer to a Range, and a file of a few pages is no cheaper in parts.
 * Bun sends a file body from the file (sendfile); a stream's length is set
 * here too, though Bun 1.4.5 drops it and sends the stream in chunks
 * (docs/decisions.md, Workarounds).
 */
export function fileBody(
	file: StoredFile,
	type: string,
	request: Request,
	set: AnswerSet,
): Blob | ReadableStream<Uint8Array> | Promise<Blob> | string {
	const { etag, lastModified, modifiedSecond } = validatorsOf(file);
	set.headers.etag = etag;
	set.headers["last-modified"] = lastModified;
	if (notModified(request, etag, modifiedSecond)) {
		set.status = 304;
		return "";
	}
	set.headers["accept-ranges"] = "bytes";
	const field = request.method === "GET" ? request.headers.get("range") : null;
	const ranges =
		field === null || !rangeAllowed(request, etag, lastModified) ? null : rangesOf(field, file.size);
	if (ranges?.length === 1 && ranges[0] !== undefined) {
		const { start, end } = ranges[0];
		if (start >= file.size) {
			set.status = 416;
			set.headers["content-range"] = `bytes */${file.size}`;
			return "";
		}
		set.status = 206;
		set.headers["content-range"] = `bytes ${start}-${end}/${file.size}`;
		return bytesOf(file, start, end, type, set);
	}
	return bytesOf(file, 0, file.size - 1, type, set);
}

function bytesOf(file: StoredFile, start: number, end: number, type: string, set: AnswerSet) {
	set.headers["content-type"] = type;
	const body = file.bytes(start, end);
	if (body instanceof ReadableStream) set.headers["content-length"] = String(end - start + 1);
	return body;
}
