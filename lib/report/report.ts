// The transmission report of a fax: what the received file and its delivery
// said of how it was sent, gathered at ingest and kept with the fax
// (fax_reports), shown on the fax's page. Nothing in it is private: the sender
// shows on the page masked, from the fax itself, never from here.
import type { ScanFacts } from "../document/index.ts";
import type { MailAuthReport } from "./auth-report.ts";
import type { HylafaxSession } from "./hylafax-session.ts";
import type { T30Session } from "./t30-session.ts";

/** One page's geometry as its TIFF tags give it. */
export type TiffPage = {
	width: number;
	height: number;
	/** Dots per inch across and down; null when the file gives none. */
	xDpi: number | null;
	yDpi: number | null;
};

/** What the document was: its format, and for a TIFF its coding and first page. */
export type DocumentReport =
	| { format: "PDF" }
	| {
			format: "TIFF";
			/** MH, MR, MMR, JBIG, or the TIFF compression's name when it is none of them. */
			coding: string;
			pages: number;
			firstPage: TiffPage | null;
			/** Each page's length in lines (ImageLength), in order; absent in reports made before 2026-11-27. */
			pageLengths?: number[];
	  };

/** The session a fax machine negotiated with our modem, as HylaFAX recorded it (faxinfo's fields). */
export type SessionReport = HylafaxSession & {
	/**
	 * The station ID (TSI) the received file itself holds, masked as every
	 * sender is; null when the sender gave none. Absent in reports made before
	 * it was kept: their page shows the fax's sender.
	 */
	stationId?: string | null;
};

/** How an email test came. */
export type EmailReport = {
	/** scan-to-email PDF, ITU-T T.37 simple mode TIFF-F, another TIFF, or no usable attachment. */
	test: "pdf" | "t37" | "tiff" | "none";
	/** The attachment's media type as its part declared it, parameters included (lower case). */
	mimeType: string | null;
	/** The attachment's file name, made safe (see safeFileName). */
	attachmentName: string | null;
	attachmentBytes: number | null;
	/** The sending host as our own mail server recorded it; null when our server did not relay it. */
	relayHost: string | null;
	/** How it came to our server: the TLS protocol and cipher, "none" without TLS, null when not known. */
	tls: { protocol: string; cipher: string | null; bits: number | null } | "none" | null;
	/**
	 * Seconds the sending device's Date header is ahead of our mail server's
	 * receipt (negative: behind); null when either is not known. Absent in
	 * reports made before 2026-11-28, as are the two below.
	 */
	clockOffsetSeconds?: number | null;
	/** What the attachment holds, page by page (lib/document/scan-facts.ts); null when it cannot be read. */
	scan?: ScanFacts | null;
	/** What a real recipient's mail server would make of it (mail-auth.ts); null when not checked. */
	auth?: MailAuthReport | null;
};

/**
 * The call as HylaFAX's session log told it: the T.30 timeline, the TSI masked
 * in its lines and not kept otherwise. Reports made before 2026-11-27 lack
 * the fields marked optional; lib/report/call-model.ts reads them as unknown.
 */
export type CallReport = Omit<
	T30Session,
	"tsi" | "startedAt" | "faxMachine" | "answered" | "sessionEnded" | "steps"
> &
	Partial<Pick<T30Session, "faxMachine" | "answered" | "sessionEnded" | "steps">> & {
		/** The file held no page: the call ended before page 1. */
		noPage: boolean;
	};

/**
 * A message to a test address that our mail server did not take whole, as its
 * log told it (lib/ingest/postfix-log.ts): nothing of the message was kept.
 */
export type MailRefusalReport = {
	/** Refused as larger than the server takes; the connection lost; the device silent past the server's timeout. */
	kind: "too-large" | "lost" | "timeout";
	/** Bytes of the message received before it ended; null when the log does not say. */
	bytes: number | null;
	/** The largest message the server takes, in bytes. */
	limitBytes: number;
};

export type FaxReport = {
	document: DocumentReport | null;
	session: SessionReport | null;
	email: EmailReport | null;
	/** The call's T.30 session, for a fax by phone whose session log was handed over; absent otherwise. */
	call?: CallReport;
	/** Why it could not be processed, in a tester's words; absent when it was. */
	problem?: string;
	/** The message never arrived whole (an email test only); absent when it did. */
	refused?: MailRefusalReport;
};
