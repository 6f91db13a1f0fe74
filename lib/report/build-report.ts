import { detectFormat, type FaxEmail, MAX_INPUT_BYTES, tiffFacts } from "../document/index.ts";
import { tiffDocument } from "./document-report.ts";
import { emailReport } from "./email-report.ts";
import { hylafaxSession } from "./hylafax-session.ts";
import { problemWords } from "./problem-words.ts";
import type { DocumentReport, FaxReport, SessionReport } from "./report.ts";

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
	const session: SessionReport | null =
		input.source === "phone" && facts !== null ? hylafaxSession(facts) : null;
	const report: FaxReport = {
		document,
		session,
		email: input.email === null ? null : emailReport(input.email, format, input.relayedByUs),
	};
	return input.reason === undefined ? report : { ...report, problem: problemWords(input.reason) };
}
