import { detectFormat, type FaxEmail, faxStationId, MAX_INPUT_BYTES, tiffFacts } from "../document/index.ts";
import { maskSender } from "../fax/index.ts";
import { tiffDocument } from "./document-report.ts";
import { emailReport } from "./email-report.ts";
import { hylafaxSession } from "./hylafax-session.ts";
import { callReportOf } from "./live-progress.ts";
import { problemWords } from "./problem-words.ts";
import type { CallReport, DocumentReport, FaxReport, MailRefusalReport, SessionReport } from "./report.ts";
import { parseSessionLog } from "./t30-session.ts";

/** What HylaFAX handed over of the call beside the file (lib/ingest/recvq.ts). */
export type HylafaxCall = {
	/** The session log, log/cCOMMID; null when none was handed over. */
	log: string | null;
	/** The reason faxgetty gave FaxRcvdCmd; null or empty for a clean call. */
	reason: string | null;
	/** The call left no file: it ended before its first page. */
	callOnly: boolean;
};

/** The operator's reason for a call that left no file (its page says why, from the session). */
export const NO_PAGE_REASON = "the call ended before its first page";

/** What ingest knows of a received fax when it lists it. */
export interface ReportInput {
	source: "phone" | "email";
	/** The file as received: the document, or the email that carries it. */
	bytes: Uint8Array;
	/** The parsed email, when the file is one. */
	email: FaxEmail | null;
	/** True when our own mail server relayed the email (its first Received header is ours). */
	relayedByUs: boolean;
	/** Why it could not be processed; absent when it was. */
	reason?: string;
	hylafax?: HylafaxCall;
	/** The message never arrived whole: the mail server's log says how it ended. */
	refused?: MailRefusalReport;
}

function callOf(hylafax: HylafaxCall | undefined): CallReport | undefined {
	if (hylafax === undefined || (hylafax.log === null && !hylafax.callOnly)) return undefined;
	return callReportOf(parseSessionLog(hylafax.log ?? "", hylafax.reason), hylafax.callOnly);
}

function documentOf(bytes: Uint8Array): {
	document: DocumentReport | null;
	format: string | null;
	facts: ReturnType<typeof tiffFacts>;
} {
	if (bytes.byteLength > MAX_INPUT_BYTES) return { document: null, format: null, facts: null };
	const format = detectFormat(bytes);
	if (format === "pdf") return { document: { format: "PDF" }, format, facts: null };
	if (format !== "tiff") return { document: null, format, facts: null };
	const facts = tiffFacts(bytes);
	return { document: facts === null ? null : tiffDocument(facts), format, facts };
}

/** The transmission report of a fax, from the received file's own tags and its delivery. */
export function buildReport(input: ReportInput): FaxReport {
	const documentBytes = input.email === null ? input.bytes : (input.email.attachment?.bytes ?? null);
	const { document, format, facts } =
		documentBytes === null ? { document: null, format: null, facts: null } : documentOf(documentBytes);
	// The station ID row tells what the file says, not the sender an operator typed (`fax ingest --sender`).
	const negotiated = input.source === "phone" && facts !== null ? hylafaxSession(facts) : null;
	const session: SessionReport | null =
		negotiated === null || documentBytes === null
			? null
			: { ...negotiated, stationId: maskSender(faxStationId(documentBytes)) };
	const call = callOf(input.hylafax);
	const report: FaxReport = {
		document,
		session,
		email: input.email === null ? null : emailReport(input.email, format, input.relayedByUs),
		...(call === undefined ? {} : { call }),
		...(input.refused === undefined ? {} : { refused: input.refused }),
	};
	// The call's or the refusal's own words tell why; the document's would say "empty".
	if (input.reason === undefined || call?.noPage || input.refused !== undefined) return report;
	return { ...report, problem: problemWords(input.reason) };
}
