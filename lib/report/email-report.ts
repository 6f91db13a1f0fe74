import type { FaxEmail } from "../document/index.ts";
import type { EmailReport } from "./report.ts";

// Postfix's smtpd writes its Received header as
//   from HELO (NAME [ADDRESS]) ... by HOST (Postfix) with PROTOCOL id QUEUEID ...
// and, with smtpd_tls_received_header = yes, right after the first line
//   (using PROTOCOL with cipher CIPHER (USED/ALGORITHM bits) ...)
// NAME is the client's verified reverse-DNS name, or "unknown" (smtpd.c):
// always so on a host whose chrooted smtpd cannot resolve (Debian's default).
// An IPv6 address may carry Postfix's "IPv6:" tag.
const FROM = /^\s*from\s+(\S+)\s+\((\S+)\s+\[(?:IPv6:)?([^\]]*)\]\)/i;
const TLS = /\(using\s+(\S+)\s+with\s+cipher\s+(\S+)\s+\((\d+)\/\d+\s+bits\)/i;
// RFC 3848: a with-protocol ending in S (ESMTPS, ESMTPSA, UTF8SMTPS…) means TLS.
const WITH = /\swith\s+([A-Z0-9]+)\b/i;
const MAX_NAME = 120;
// Control characters, and the bidirectional controls that could make a name read otherwise.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is its job
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The last part of a file name, with no control characters, at most MAX_NAME characters. */
export function safeFileName(name: string): string | null {
	const last = name.split(/[\\/]/).pop() ?? "";
	const clean = [...last.replace(UNSAFE, "").trim()].slice(0, MAX_NAME).join("");
	return clean === "" ? null : clean;
}

function tlsOf(received: string): EmailReport["tls"] {
	const using = TLS.exec(received);
	if (using) return { protocol: using[1] ?? "", cipher: using[2] ?? "", bits: Number(using[3]) };
	const protocol = WITH.exec(received)?.[1]?.toUpperCase();
	if (protocol === undefined) return null;
	return /SA?$/.test(protocol) ? { protocol: "TLS", cipher: null, bits: null } : "none";
}

/** The client of our Postfix's Received header: the name it gave (HELO), its verified name ("unknown" when none), its address. */
export function receivedFrom(received: string): { helo: string; verified: string; address: string } | null {
	const from = FROM.exec(received);
	if (from === null) return null;
	const [, helo = "", verified = "", address = ""] = from;
	return { helo, verified, address };
}

/**
 * The domains a host name of the sender's own names: the From address's
 * domain and, below a registered name, its parent (scan@mail.example.org sends
 * from mfp.example.org as well).
 */
function ownDomains(sender: string | null): string[] {
	const domain = sender?.split("@")[1]?.trim().toLowerCase();
	if (!domain) return [];
	const labels = domain.split(".");
	return labels.length > 2 ? [domain, labels.slice(1).join(".")] : [domain];
}

/** A host name with the sender's own domain said as "your domain": the page never names it. */
function withoutOwnDomain(name: string, own: string[]): string {
	const lower = name.toLowerCase();
	const domain = own.find((candidate) => lower === candidate || lower.endsWith(`.${candidate}`));
	if (domain === undefined) return name;
	const host = name.slice(0, name.length - domain.length).replace(/\.$/, "");
	return host === "" ? "(your domain)" : `${host}.(your domain)`;
}

/**
 * The sending host: its verified name; without one, the name it gave itself
 * (HELO), said to be just that; the sender's own domain in it said as "your
 * domain". The address stays off the page.
 */
function relayHostOf(received: string, sender: string | null): string | null {
	const from = receivedFrom(received);
	if (from === null) return null;
	const { helo, verified } = from;
	const own = ownDomains(sender);
	if (verified.toLowerCase() !== "unknown") return withoutOwnDomain(verified, own);
	const named = withoutOwnDomain(helo.replace(UNSAFE, "").slice(0, MAX_NAME), own);
	return `${named} (the name it gave itself; no verified name)`;
}

/** The T.37 simple mode marks its TIFF-F as `image/tiff; application=faxbw` (RFC 3302). */
function testKind(format: string | null, contentType: string | null): EmailReport["test"] {
	if (format === "pdf") return "pdf";
	if (format !== "tiff") return "none";
	return /(^|;)\s*application\s*=\s*"?faxbw"?\s*(;|$)/i.test(contentType ?? "") ? "t37" : "tiff";
}

/**
 * The device's Date against the time our mail server wrote in its Received
 * header, in whole seconds; null when either is missing or our server did not
 * relay the message (another server's header could say anything).
 */
function clockOffset(email: FaxEmail, relayedByUs: boolean): number | null {
	if (!relayedByUs || email.receivedAt === null || email.relayedAt === null) return null;
	return Math.round((email.receivedAt.getTime() - email.relayedAt.getTime()) / 1000);
}

/**
 * What the email says of the test. The relay host and TLS come from the first
 * Received header only when our own mail server relayed the message (it wrote
 * that header); any other header could say anything.
 */
export function emailReport(email: FaxEmail, format: string | null, relayedByUs: boolean): EmailReport {
	const attachment = email.attachment;
	const received = relayedByUs ? email.firstReceived : null;
	const contentType = attachment?.contentType ?? null;
	return {
		test: testKind(attachment === null ? null : format, contentType),
		mimeType: contentType === null ? null : contentType.replace(/\s+/g, " ").toLowerCase().slice(0, 200),
		attachmentName: attachment?.filename ? safeFileName(attachment.filename) : null,
		attachmentBytes: attachment?.bytes.byteLength ?? null,
		relayHost: received === null ? null : relayHostOf(received, email.sender),
		tls: received === null ? null : tlsOf(received),
		clockOffsetSeconds: clockOffset(email, relayedByUs),
	};
}
