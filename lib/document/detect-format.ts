export type DocumentFormat = "pdf" | "tiff" | "email" | "unknown";

// PDF readers accept the header anywhere in the first KiB (some scanners put
// junk before it), so we do too.
const PDF_HEADER_WINDOW = 1024;
// Enough for the header block of any real message.
const EMAIL_HEADER_WINDOW = 64 * 1024;
// Fields a mail server or mail client always writes; a text file with a stray
// "Note: ..." line must not pass for an email.
const KNOWN_EMAIL_FIELDS = new Set([
	"from",
	"to",
	"date",
	"subject",
	"received",
	"return-path",
	"message-id",
	"mime-version",
	"delivered-to",
]);
const FIELD_LINE = /^([!-9;-~]+):/;

/**
 * Classifies input by its content. `filename` is a hint only: an ".eml" name
 * makes a file that is neither PDF nor TIFF an email even when its header
 * block does not look like one.
 */
export function detectFormat(bytes: Uint8Array, filename?: string): DocumentFormat {
	if (isTiff(bytes)) return "tiff";
	if (isPdf(bytes)) return "pdf";
	if (filename?.toLowerCase().endsWith(".eml")) return "email";
	return looksLikeEmail(bytes) ? "email" : "unknown";
}

function isTiff(bytes: Uint8Array): boolean {
	const [a, b, c, d] = bytes;
	return (
		(a === 0x49 && b === 0x49 && c === 0x2a && d === 0x00) ||
		(a === 0x4d && b === 0x4d && c === 0x00 && d === 0x2a)
	);
}

function isPdf(bytes: Uint8Array): boolean {
	const head = latin1(bytes.subarray(0, PDF_HEADER_WINDOW));
	return head.includes("%PDF-");
}

function looksLikeEmail(bytes: Uint8Array): boolean {
	const lines = latin1(bytes.subarray(0, EMAIL_HEADER_WINDOW)).split(/\r?\n/);
	// The window may end in the middle of a line.
	if (bytes.length > EMAIL_HEADER_WINDOW) lines.pop();
	// A pipe transport may hand over the mbox envelope line first.
	if (lines[0]?.startsWith("From ")) lines.shift();
	let fields = 0;
	let known = false;
	for (const line of lines) {
		if (line === "") break;
		if (line.startsWith(" ") || line.startsWith("\t")) {
			if (fields === 0) return false;
			continue;
		}
		const name = FIELD_LINE.exec(line)?.[1];
		if (name === undefined) return false;
		fields++;
		if (KNOWN_EMAIL_FIELDS.has(name.toLowerCase())) known = true;
	}
	return known;
}

function latin1(bytes: Uint8Array): string {
	return new TextDecoder("latin1").decode(bytes);
}
