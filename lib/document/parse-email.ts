import PostalMime, { type Attachment, type Email } from "postal-mime";
import { detectFormat } from "./detect-format.ts";

export type FaxEmail = {
	/** The From address, as written. */
	sender: string | null;
	/** The Date header. */
	receivedAt: Date | null;
	/** The first PDF or TIFF attachment: the fax. */
	attachment: { filename: string | null; bytes: Uint8Array } | null;
};

export const NO_ATTACHMENT_REASON = "email has no PDF or TIFF attachment";

const FAX_MIME_TYPES = new Set([
	"application/pdf",
	"application/x-pdf",
	"image/tiff",
	"image/tif",
	"image/x-tiff",
]);
const FAX_EXTENSION = /\.(pdf|tiff?)$/i;
// Mail clients label files they do not know with this; only then do the
// bytes decide.
const UNTYPED = "application/octet-stream";

/** Never throws: a message postal-mime rejects has nothing to offer. */
export async function parseFaxEmail(bytes: Uint8Array): Promise<FaxEmail> {
	let email: Email;
	try {
		email = await PostalMime.parse(bytes, { attachmentEncoding: "arraybuffer" });
	} catch {
		return { sender: null, receivedAt: null, attachment: null };
	}
	const attachment = email.attachments
		.map((part) => ({ part, bytes: contentBytes(part) }))
		.find(({ part, bytes }) => isFaxDocument(part, bytes));
	return {
		sender: senderAddress(email),
		receivedAt: parseDate(email.date),
		attachment: attachment ? { filename: attachment.part.filename, bytes: attachment.bytes } : null,
	};
}

function senderAddress(email: Email): string | null {
	const from = email.from?.group ? email.from.group[0] : email.from;
	return from?.address?.trim() || null;
}

function parseDate(value: string | undefined): Date | null {
	if (value === undefined) return null;
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date;
}

function isFaxDocument(part: Attachment, bytes: Uint8Array): boolean {
	if (FAX_MIME_TYPES.has(part.mimeType)) return true;
	if (part.filename && FAX_EXTENSION.test(part.filename)) return true;
	if (part.mimeType !== UNTYPED) return false;
	const format = detectFormat(bytes);
	return format === "pdf" || format === "tiff";
}

function contentBytes(part: Attachment): Uint8Array {
	const { content } = part;
	if (typeof content === "string") return new TextEncoder().encode(content);
	return content instanceof Uint8Array ? content : new Uint8Array(content);
}
