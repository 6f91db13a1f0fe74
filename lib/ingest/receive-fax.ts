import type { FaxStore } from "../db/index.ts";
import {
	detectFormat,
	MAX_INPUT_BYTES,
	NO_ATTACHMENT_REASON,
	type NotProcessable,
	type ProcessedDocument,
	parseFaxEmail,
	processDocument,
} from "../document/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { cutSender, newSlug } from "../fax/index.ts";
import { deleteFaxFiles, writeFaxFiles } from "../storage/index.ts";

export interface ReceivedFile {
	bytes: Uint8Array;
	/** The input's name, a hint for telling an email from other text; null for standard input. */
	filename: string | null;
	source: "phone" | "email";
	/** Overrides the sender an email names. */
	sender?: string | null;
	/** Unix seconds; overrides the time an email names. */
	receivedAt?: number;
}

export interface Received {
	fax: FaxRow;
	/** Why the fax could not be processed; absent when it was. */
	reason?: string;
}

// An email's Date is the sending device's clock. Clients poll with `since` set
// just before they send, so a Date from a clock running slow would hide the test
// from them, and one in the future would put it ahead of later tests: only a
// Date from the last few minutes (mail queues, transit) is taken as the time.
const DATE_HEADER_WINDOW_SECONDS = 300;

function arrivalTime(sentAt: number | null, now: number): number {
	return sentAt !== null && sentAt <= now && sentAt >= now - DATE_HEADER_WINDOW_SECONDS ? sentAt : now;
}

function uniqueSlug(store: FaxStore): string {
	let slug = newSlug();
	while (store.slugTaken(slug)) slug = newSlug();
	return slug;
}

async function documentOf(file: ReceivedFile): Promise<{
	result: ProcessedDocument | NotProcessable;
	sender: string | null;
	sentAt: number | null;
}> {
	// Past the size limit nothing is parsed: processDocument says why at once.
	const tooLarge = file.bytes.byteLength > MAX_INPUT_BYTES;
	if (tooLarge || detectFormat(file.bytes, file.filename ?? undefined) !== "email") {
		return { result: await processDocument(file.bytes), sender: null, sentAt: null };
	}
	const email = await parseFaxEmail(file.bytes);
	const sentAt = email.receivedAt === null ? null : Math.floor(email.receivedAt.getTime() / 1000);
	const result = email.attachment
		? await processDocument(email.attachment.bytes)
		: ({ ok: false, reason: NO_ATTACHMENT_REASON } as const);
	return { result, sender: email.sender, sentAt };
}

/**
 * Turns a received file into a listed fax. The files are written (under
 * temporary names, then renamed) before the row is inserted, so the API never
 * lists a fax whose PDF is not there yet; a file that cannot be processed is
 * still recorded, with its four file fields null.
 */
export async function receiveFax(
	file: ReceivedFile,
	store: FaxStore,
	storageDir: string,
	now: number,
): Promise<Received> {
	const { result, sender, sentAt } = await documentOf(file);
	const receivedAt = file.receivedAt ?? arrivalTime(sentAt, now);
	const slug = uniqueSlug(store);
	const given = file.sender !== undefined ? file.sender : sender;
	const base = {
		slug,
		source: file.source,
		// The longest sender the import accepts too; longer From headers are cut, not refused.
		sender: given === null ? null : cutSender(given),
		received_at: receivedAt,
	};
	if (!result.ok) {
		const fax = { ...base, page_count: null, file_size: null };
		await store.insert(fax);
		return { fax, reason: result.reason };
	}
	await writeFaxFiles(storageDir, slug, { pdf: result.pdf, thumbnail: result.thumbnail });
	const fax = { ...base, page_count: result.pageCount, file_size: result.pdf.byteLength };
	try {
		await store.insert(fax);
	} catch (error) {
		await deleteFaxFiles(storageDir, slug);
		throw error;
	}
	return { fax };
}
