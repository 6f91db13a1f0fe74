import type { Attachment } from "postal-mime";
import { detectFormat } from "./detect-format.ts";
import {
	contentType,
	headerField,
	type MimeEntity,
	multipartParts,
	splitEntity,
	transferEncoding,
} from "./mime-entity.ts";
import { decodeTransferEncoding } from "./transfer-encoding.ts";

export type FaxEmail = {
	/** The From address, as written. */
	sender: string | null;
	/** The Date header: the sending device's clock. */
	receivedAt: Date | null;
	/** The Message-ID header, as written; null when absent or blank. */
	messageId: string | null;
	/**
	 * The time in the first Received header: when the last mail server, the
	 * one that hands the message over to us, received it.
	 */
	relayedAt: Date | null;
	/** The first Received header, unfolded: the last mail server's record of the delivery. */
	firstReceived: string | null;
	/**
	 * The first Return-Path header, as written: the envelope sender our mail
	 * server's pipe prepends (Postfix drops any the client sent); null when absent.
	 */
	returnPath: string | null;
	/** The first PDF or TIFF attachment: the fax, with its Content-Type field as written. */
	attachment: { filename: string | null; bytes: Uint8Array; contentType: string | null } | null;
	/** Why the search for it stopped short (too many parts, too deep); null when it did not. */
	searchLimit: string | null;
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
// bytes decide, and the first few are enough (see detectFormat).
const UNTYPED = "application/octet-stream";
// Encoded bytes of an untyped part decoded to tell what it is: the first KiB
// of content, base64 or quoted-printable, with room to spare.
const SNIFFED_ENCODED_BYTES = 4096;
// Far more than any fax email has; every part costs a little work.
const MAX_PARTS = 1000;
const MAX_DEPTH = 32;

type PostalMime = typeof import("postal-mime").default;

/**
 * Sender, date and the fax document of an email. The message's structure is
 * walked on its raw bytes and only the fax document is decoded: other
 * attachments, however many and large, cost no memory. Never throws: a
 * message that cannot be parsed has nothing to offer.
 */
export async function parseFaxEmail(bytes: Uint8Array): Promise<FaxEmail> {
	// Loaded here, not with the module: most faxes are not emails.
	const { default: PostalMime } = await import("postal-mime");
	const message = splitEntity(bytes);
	let attachment: FaxEmail["attachment"] = null;
	const search = new FaxPartSearch(PostalMime);
	try {
		attachment = await search.find(message, 0);
	} catch {
		attachment = null;
	}
	return { ...(await senderAndDate(PostalMime, message.header)), attachment, searchLimit: search.limit };
}

/** Sender and date of an email too large to parse: its header block only. */
export async function parseFaxEmailHeader(bytes: Uint8Array): Promise<FaxEmail> {
	const { default: PostalMime } = await import("postal-mime");
	const { header } = splitEntity(bytes.subarray(0, HEADER_READ_BYTES));
	return { ...(await senderAndDate(PostalMime, header)), attachment: null, searchLimit: null };
}

// A header block is far smaller; what lies past it is not looked at.
const HEADER_READ_BYTES = 256 * 1024;

class FaxPartSearch {
	private parts = 0;
	/** The first limit the search ran into. */
	limit: string | null = null;

	constructor(private readonly postalMime: PostalMime) {}

	/** The first fax document in the entity, depth first, as a mail client lists attachments. */
	async find(entity: MimeEntity, depth: number): Promise<FaxEmail["attachment"]> {
		if (++this.parts > MAX_PARTS) {
			this.limit ??= `email has more than ${MAX_PARTS} MIME parts before a PDF or TIFF attachment`;
			return null;
		}
		if (depth > MAX_DEPTH) {
			this.limit ??= `email nests MIME parts more than ${MAX_DEPTH} deep`;
			return null;
		}
		const { type, boundary } = contentType(entity.header);
		if (type.startsWith("multipart/")) {
			if (boundary === null) return null;
			for (const part of multipartParts(entity.body, boundary)) {
				const found = await this.find(splitEntity(part), depth + 1);
				if (found) return found;
			}
			return null;
		}
		if (type === "message/rfc822") return this.find(splitEntity(entity.body), depth + 1);
		return this.leaf(entity);
	}

	private async leaf(entity: MimeEntity): Promise<FaxEmail["attachment"]> {
		const described = await this.describe(entity.header);
		if (described === undefined) return null;
		const encoding = transferEncoding(entity.header);
		const named = described.filename !== null && FAX_EXTENSION.test(described.filename);
		if (!FAX_MIME_TYPES.has(described.mimeType) && !named) {
			if (described.mimeType !== UNTYPED) return null;
			const format = detectFormat(
				decodeTransferEncoding(firstLines(entity.body, SNIFFED_ENCODED_BYTES), encoding),
			);
			if (format !== "pdf" && format !== "tiff") return null;
		}
		return {
			filename: described.filename,
			bytes: decodeTransferEncoding(entity.body, encoding),
			contentType: headerField(entity.header, "content-type")?.trim() ?? null,
		};
	}

	/** Type and file name of a part, from its header; undefined when it is text, not an attachment. */
	private async describe(header: Uint8Array): Promise<Attachment | undefined> {
		const email = await this.postalMime.parse(Buffer.concat([header, Buffer.from("\r\n")]));
		return email.attachments[0];
	}
}

/** Whole lines of the body up to about `bytes`, so no encoded unit is cut. */
function firstLines(body: Uint8Array, bytes: number): Uint8Array {
	if (body.length <= bytes) return body;
	const lastBreak = body.subarray(0, bytes).lastIndexOf(0x0a);
	return body.subarray(0, lastBreak === -1 ? bytes : lastBreak + 1);
}

/** From and Date of the message's own header block. */
async function senderAndDate(
	postalMime: PostalMime,
	header: Uint8Array,
): Promise<Omit<FaxEmail, "attachment" | "searchLimit">> {
	try {
		const email = await postalMime.parse(Buffer.concat([header, Buffer.from("\r\n")]));
		const from = email.from?.group ? email.from.group[0] : email.from;
		const received = email.headers.find((header) => header.key === "received")?.value;
		return {
			sender: from?.address?.trim() || null,
			receivedAt: parseDate(email.date),
			messageId: email.messageId?.trim() || null,
			relayedAt: receivedHeaderTime(received),
			firstReceived: received?.replace(/\s+/g, " ") ?? null,
			returnPath: email.headers.find((header) => header.key === "return-path")?.value.trim() ?? null,
		};
	} catch {
		const none = { sender: null, receivedAt: null, messageId: null, relayedAt: null, firstReceived: null };
		return { ...none, returnPath: null };
	}
}

/** The date-time a Received header ends with, after its last semicolon (RFC 5322 §3.6.7). */
function receivedHeaderTime(value: string | undefined): Date | null {
	const semicolon = value?.lastIndexOf(";") ?? -1;
	if (value === undefined || semicolon < 0) return null;
	return parseDate(
		value
			.slice(semicolon + 1)
			.replace(/\([^)]*\)\s*$/, "")
			.trim(),
	);
}

function parseDate(value: string | undefined): Date | null {
	if (value === undefined) return null;
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date;
}
