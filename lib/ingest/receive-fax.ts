import { type FaxStore, type KeptWithFax, UnconfirmedCommitError } from "../db/index.ts";
import {
	detectFormat,
	type FaxEmail,
	MAX_EMAIL_BYTES,
	NO_ATTACHMENT_REASON,
	type NotProcessable,
	type ProcessedDocument,
	parseFaxEmail,
	parseFaxEmailHeader,
	processDocument,
} from "../document/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { cutSender, newSlug } from "../fax/index.ts";
import {
	buildReport,
	callKeyOf,
	checkedEmailReport,
	type HylafaxCall,
	type MailChecks,
	type MailRefusalReport,
	NO_PAGE_REASON,
} from "../report/index.ts";
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
	/**
	 * What the receiver names this fax by (a Message-ID, a queue file): handed
	 * over again under the same key, it is not listed twice.
	 */
	receiptKey?: string;
	/**
	 * The file is an email our own mail server relayed, with its queue id:
	 * named by its Message-ID (else the queue id) and timed by the server's
	 * Received header, so a re-delivery lists nothing new and keeps its time.
	 */
	relayed?: { queueId: string | null; checks?: MailChecks };
	/**
	 * What HylaFAX said of the call beside the file: its session log, when
	 * handed over, and the reason FaxRcvdCmd was given; `callOnly` when the call
	 * left no file (it ended before its first page).
	 */
	hylafax?: HylafaxCall;
	/** A message to a test address our mail server did not take whole: `bytes` is empty, nothing of it arrived. */
	refused?: MailRefusalReport;
}

export type Received =
	| {
			fax: FaxRow;
			/** Why the fax could not be processed; absent when it was. */
			reason?: string;
			repeatOf?: undefined;
	  }
	/** The receipt key was handed over before: `repeatOf` is the slug it became, listed or removed since. */
	| { repeatOf: string };

// An email's Date is the sending device's clock. Clients poll with `since` set
// just before they send, so a Date from a clock running slow would hide the test
// from them, and one in the future would put it ahead of later tests: only a
// Date from the last few minutes (mail queues, transit) is taken as the time.
const DATE_HEADER_WINDOW_SECONDS = 300;

function arrivalTime(sentAt: number | null, now: number): number {
	return sentAt !== null && sentAt <= now && sentAt >= now - DATE_HEADER_WINDOW_SECONDS ? sentAt : now;
}

export async function uniqueSlug(store: FaxStore): Promise<string> {
	let slug = newSlug();
	while (await store.slugTaken(slug)) slug = newSlug();
	return slug;
}

const EMAIL_TOO_LARGE_REASON = `email is larger than ${MAX_EMAIL_BYTES / 1024 / 1024} MiB`;

/**
 * The email a file holds, or null when it holds a document. Past the email
 * size limit only its header is read: the sender is kept, so a client
 * waiting for its address sees why.
 */
export async function emailOf(file: ReceivedFile): Promise<FaxEmail | null> {
	if (file.refused !== undefined) return null;
	if (detectFormat(file.bytes, file.filename ?? undefined) !== "email") return null;
	if (file.bytes.byteLength > MAX_EMAIL_BYTES) return parseFaxEmailHeader(file.bytes);
	return parseFaxEmail(file.bytes);
}

export function documentOf(
	file: ReceivedFile,
	email: FaxEmail | null,
): Promise<ProcessedDocument | NotProcessable> {
	if (email === null) return processDocument(file.bytes);
	if (email.attachment !== null) return processDocument(email.attachment.bytes);
	const tooLarge = file.bytes.byteLength > MAX_EMAIL_BYTES;
	const reason = tooLarge ? EMAIL_TOO_LARGE_REASON : (email.searchLimit ?? NO_ATTACHMENT_REASON);
	return Promise.resolve({ ok: false, reason });
}

/** The operator's reason for a message to a test address our mail server did not take whole. */
export function refusalReason(refused: MailRefusalReport): string {
	if (refused.kind === "too-large")
		return `the mail server refused the message: larger than ${refused.limitBytes} bytes`;
	const bytes = refused.bytes === null ? "" : ` after ${refused.bytes} bytes`;
	return refused.kind === "lost"
		? `the connection was lost during the message${bytes}`
		: `the sender stopped sending during the message${bytes}`;
}

function resultOf(file: ReceivedFile, email: FaxEmail | null): Promise<ProcessedDocument | NotProcessable> {
	if (file.hylafax?.callOnly) return Promise.resolve({ ok: false, reason: NO_PAGE_REASON });
	if (file.refused !== undefined) return Promise.resolve({ ok: false, reason: refusalReason(file.refused) });
	return documentOf(file, email);
}

/** The email's document, or its body when it has none: what the receipt key tells apart. */
function contentDigest(file: ReceivedFile, email: FaxEmail): string {
	const raw = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
	const blankLine = /\r?\n\r?\n/.exec(raw.subarray(0, 256 * 1024).toString("latin1"));
	const content =
		email.attachment?.bytes ?? raw.subarray(blankLine ? blankLine.index + blankLine[0].length : 0);
	return new Bun.CryptoHasher("sha256").update(content).digest("hex");
}

/**
 * A relayed email is named by its Message-ID, which a re-delivery and a
 * device's resend keep, with its Date, so that a device that writes the
 * same Message-ID on every scan still has each test listed, and with its
 * document's SHA-256, so that one without a clock (the same Date each time)
 * does too; else by the mail server's queue id.
 */
function receiptKeyOf(file: ReceivedFile, email: FaxEmail | null): string | undefined {
	if (file.relayed === undefined) return file.receiptKey;
	if (email?.messageId) {
		const date = email.receivedAt?.toISOString() ?? "none";
		return `message-id:${email.messageId} date:${date} sha256:${contentDigest(file, email)}`;
	}
	return file.relayed.queueId === null ? undefined : `queue-id:${file.relayed.queueId}`;
}

/** When the fax arrived: as given, else as the relay or the email's Date says, else now. */
function receivedTime(file: ReceivedFile, email: FaxEmail | null, now: number): number {
	if (file.receivedAt !== undefined) return file.receivedAt;
	const seconds = (date: Date | null | undefined) => (date ? Math.floor(date.getTime() / 1000) : null);
	// Our own mail server's clock wrote the first Received header: trusted, however long ago.
	const relayedAt = file.relayed ? seconds(email?.relayedAt) : null;
	if (relayedAt !== null && relayedAt <= now) return relayedAt;
	return arrivalTime(seconds(email?.receivedAt), now);
}

/**
 * Inserts the fax with its files' bytes, under its receipt key when it has
 * one; returns the slug listed, another one's when the key was handed over
 * meanwhile.
 */
async function insertOnce(
	store: FaxStore,
	fax: FaxRow,
	receiptKey: string | undefined,
	kept: KeptWithFax,
): Promise<string> {
	if (receiptKey === undefined) {
		await store.insert(fax, kept);
		return fax.slug;
	}
	return store.insertReceived(fax, receiptKey, kept);
}

/** The call in progress a fax by phone ends (lib/live-calls): its entry gives way to the fax in the same commit. */
function endsCall(file: ReceivedFile): { endsCall?: string } {
	const key = file.hylafax?.log == null ? null : callKeyOf(file.hylafax.log);
	return key === null ? {} : { endsCall: key };
}

/** The transmission report kept with the fax (lib/report), as JSON; an email's with what ingest checks of it. */
export async function reportOf(
	file: ReceivedFile,
	email: FaxEmail | null,
	reason: string | undefined,
): Promise<string> {
	const relayedByUs = file.relayed !== undefined;
	const { source, bytes, hylafax, refused } = file;
	const report = buildReport({ source, bytes, email, relayedByUs, reason, hylafax, refused });
	if (report.email !== null && email !== null)
		report.email = await checkedEmailReport(report.email, email, bytes, file.relayed?.checks ?? null);
	return JSON.stringify(report);
}

/**
 * Turns a received file into a listed fax. The files are written (under
 * temporary names, then renamed) before the row is inserted, so the API never
 * lists a fax whose PDF is not there yet; their bytes go into the row's
 * transaction too, so a replica of the database has them with the row; a file that cannot be processed is
 * still recorded, with its four file fields null, and kept as received (out of
 * the API) for `fax reprocess`. A receipt key handed over before lists
 * nothing new, once the database has it for good (FaxStore.confirmedReceiptSlug).
 * A commit no standby confirmed (UnconfirmedCommitError) keeps the files. A
 * host that cannot process documents throws
 * (PipelineUnavailableError): nothing is listed, the receiver tries again.
 */
export async function receiveFax(
	file: ReceivedFile,
	store: FaxStore,
	storageDir: string,
	now: number,
): Promise<Received> {
	const email = await emailOf(file);
	const receiptKey = receiptKeyOf(file, email);
	const earlier = receiptKey === undefined ? null : await store.receiptSlug(receiptKey);
	if (receiptKey !== undefined && earlier !== null)
		return { repeatOf: (await store.confirmedReceiptSlug(receiptKey)) ?? earlier };
	const result = await resultOf(file, email);
	const receivedAt = receivedTime(file, email, now);
	const slug = await uniqueSlug(store);
	const given = file.sender !== undefined ? file.sender : (email?.sender ?? null);
	const base = {
		slug,
		source: file.source,
		// The longest sender the import accepts too; longer From headers are cut, not refused.
		sender: given === null ? null : cutSender(given),
		received_at: receivedAt,
	};
	const report = await reportOf(file, email, result.ok ? undefined : result.reason);
	if (!result.ok) {
		const fax = { ...base, page_count: null, file_size: null };
		// A refused message left nothing to process again.
		const original =
			file.refused === undefined
				? { original: { bytes: file.bytes, filename: file.filename, relayed: file.relayed !== undefined } }
				: {};
		const listed = await insertOnce(store, fax, receiptKey, { report, ...original, ...endsCall(file) });
		return listed === slug ? { fax, reason: result.reason } : { repeatOf: listed };
	}
	const files = { pdf: result.pdf, thumbnail: result.thumbnail };
	await writeFaxFiles(storageDir, slug, files);
	const fax = { ...base, page_count: result.pageCount, file_size: result.pdf.byteLength };
	let listed: string;
	try {
		listed = await insertOnce(store, fax, receiptKey, { files, report, ...endsCall(file) });
	} catch (error) {
		// A commit that may still land keeps its files: the disk must agree with the row it may become.
		if (!(error instanceof UnconfirmedCommitError)) await deleteFaxFiles(storageDir, slug);
		throw error;
	}
	if (listed === slug) return { fax };
	await deleteFaxFiles(storageDir, slug);
	return { repeatOf: listed };
}
