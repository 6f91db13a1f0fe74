// What ingest adds to an email test's report beside what the message says
// (email-report.ts): the scan read page by page, and what a real recipient's
// mail server would make of its authentication. Both belong to the time of
// receipt and are kept with the report; neither ever stops the hand-over.
import { detectFormat, type FaxEmail, scanFacts } from "../document/index.ts";
import { authReport } from "./auth-report.ts";
import { receivedFrom } from "./email-report.ts";
import { checkMailAuth, type MailTransaction } from "./mail-auth.ts";
import type { EmailReport } from "./report.ts";

/**
 * The longest the authentication checks add to a hand-over: past it, what
 * DNS has not answered reads "could not be checked" and the fax is listed.
 */
export const MAIL_AUTH_TIMEOUT_MS = 5000;

/** How an email our mail server relayed is checked: the DNS servers to ask (DNS_SERVERS); null: the host's. */
export interface MailChecks {
	dnsServers: string[] | null;
}

/**
 * Our mail server's record of the SMTP transaction: the client's address and
 * HELO from the Received header it wrote, the envelope sender from the
 * Return-Path its pipe prepends. Null when either is missing: no check then.
 */
export function transactionOf(email: FaxEmail): MailTransaction | null {
	const from = email.firstReceived === null ? null : receivedFrom(email.firstReceived);
	if (from === null || from.address === "" || email.returnPath === null) return null;
	const sender = email.returnPath.replace(/^<|>$/g, "").trim();
	return { clientAddress: from.address, helo: from.helo, envelopeSender: sender === "" ? null : sender };
}

/** The scan page by page; null without an attachment this site reads, or one that cannot be read. */
async function scanOf(email: FaxEmail): Promise<EmailReport["scan"]> {
	const bytes = email.attachment?.bytes;
	if (bytes === undefined) return null;
	const format = detectFormat(bytes);
	if (format !== "pdf" && format !== "tiff") return null;
	try {
		return await scanFacts(bytes, format);
	} catch {
		return null;
	}
}

async function authOf(
	message: Uint8Array,
	email: FaxEmail,
	checks: MailChecks,
): Promise<EmailReport["auth"]> {
	const transaction = transactionOf(email);
	if (transaction === null) return null;
	const auth = await checkMailAuth(message, transaction, {
		dnsServers: checks.dnsServers,
		timeoutMs: MAIL_AUTH_TIMEOUT_MS,
	});
	return authReport(auth);
}

/**
 * An email test's report with what ingest checks beside the message: the
 * scan always, the authentication when our mail server relayed it (`checks`),
 * both at once.
 */
export async function checkedEmailReport(
	report: EmailReport,
	email: FaxEmail,
	message: Uint8Array,
	checks: MailChecks | null,
): Promise<EmailReport> {
	const [scan, auth] = await Promise.all([
		scanOf(email),
		checks === null ? null : authOf(message, email, checks).catch(() => null),
	]);
	return { ...report, scan, auth };
}
