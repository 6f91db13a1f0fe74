// Walks the MIME structure of a message (RFC 2045/2046) on its raw bytes,
// without decoding any part: only boundaries are searched for, natively, so
// a message of many large attachments costs no more memory than its bytes.
// What a part's header says (type, file name) is left to postal-mime.

/** One entity: a message or a body part, its header block and its body, both raw. */
export type MimeEntity = { header: Uint8Array; body: Uint8Array };

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const DASH = 0x2d;

/** Splits at the first empty line; lines may end in CRLF or a bare LF (as pipes deliver mail). */
export function splitEntity(bytes: Uint8Array): MimeEntity {
	const buffer = asBuffer(bytes);
	if (buffer[0] === LF) return { header: buffer.subarray(0, 0), body: buffer.subarray(1) };
	if (buffer[0] === CR && buffer[1] === LF)
		return { header: buffer.subarray(0, 0), body: buffer.subarray(2) };
	for (let at = buffer.indexOf(LF); at !== -1; at = buffer.indexOf(LF, at + 1)) {
		const next = at + 1;
		if (buffer[next] === LF) return { header: buffer.subarray(0, next), body: buffer.subarray(next + 1) };
		if (buffer[next] === CR && buffer[next + 1] === LF) {
			return { header: buffer.subarray(0, next), body: buffer.subarray(next + 2) };
		}
	}
	return { header: buffer, body: buffer.subarray(buffer.length) };
}

/** The media type (lower case) and the boundary parameter of a header block's Content-Type. */
export function contentType(header: Uint8Array): { type: string; boundary: string | null } {
	const field = headerField(header, "content-type");
	if (field === null) return { type: "text/plain", boundary: null };
	const type = field.split(";", 1)[0]?.trim().toLowerCase() || "text/plain";
	const boundary = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;"]+))/i.exec(field);
	return { type, boundary: boundary ? (boundary[1] ?? boundary[2] ?? null) : null };
}

/** The Content-Transfer-Encoding (lower case); 7bit when absent. */
export function transferEncoding(header: Uint8Array): string {
	return headerField(header, "content-transfer-encoding")?.trim().toLowerCase() || "7bit";
}

/**
 * The body parts of a multipart body, in order: what lies between its
 * delimiter lines, without the line break that belongs to the delimiter.
 * A part left open at the end of the message ends there.
 */
export function* multipartParts(body: Uint8Array, boundary: string): Generator<Uint8Array> {
	const buffer = asBuffer(body);
	const dashes = Buffer.from(`--${boundary}`, "latin1");
	let partStart = -1;
	for (let line = 0; line < buffer.length; ) {
		const delimiter = buffer.indexOf(dashes, line);
		if (delimiter === -1) break;
		const afterDashes = delimiter + dashes.length;
		const closing = buffer[afterDashes] === DASH && buffer[afterDashes + 1] === DASH;
		const lineEnd = buffer.indexOf(LF, afterDashes);
		const end = lineEnd === -1 ? buffer.length : lineEnd + 1;
		if (
			(delimiter === 0 || buffer[delimiter - 1] === LF) &&
			onlyWhitespace(buffer, closing ? afterDashes + 2 : afterDashes, lineEnd === -1 ? end : lineEnd)
		) {
			if (partStart !== -1) yield buffer.subarray(partStart, withoutLineBreak(buffer, delimiter));
			if (closing) return;
			partStart = end;
		}
		line = end;
	}
	if (partStart !== -1 && partStart < buffer.length) yield buffer.subarray(partStart);
}

/** The unfolded value of the first field of this name, or null. */
export function headerField(header: Uint8Array, name: string): string | null {
	const text = Buffer.from(header.buffer, header.byteOffset, header.byteLength).toString("latin1");
	const unfolded = text.replace(/\r?\n[ \t]/g, " ");
	for (const line of unfolded.split(/\r?\n/)) {
		const colon = line.indexOf(":");
		if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1);
	}
	return null;
}

// Transport padding (RFC 2046 5.1.1) and the CR of a CRLF.
function onlyWhitespace(buffer: Buffer, from: number, to: number): boolean {
	for (let at = from; at < to; at++) {
		const byte = buffer[at];
		if (byte !== SPACE && byte !== TAB && byte !== CR) return false;
	}
	return true;
}

function withoutLineBreak(buffer: Buffer, delimiter: number): number {
	if (delimiter === 0) return 0;
	const beforeLf = delimiter - 1;
	return beforeLf > 0 && buffer[beforeLf - 1] === CR ? beforeLf - 1 : beforeLf;
}

function asBuffer(bytes: Uint8Array): Buffer {
	return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
