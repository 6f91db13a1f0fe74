/**
 * A scan-to-email test's message, as a device sends it (a real scan from
 * fixtures/scans attached) and, with `relayed`, as our Postfix's pipe hands
 * it over: its Received header first and the Return-Path the pipe prepends
 * (flags=R). Shared by the tests of the email model, the receivers' and the
 * demo's email tests.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

export const SCAN_ATTACHMENT = {
	path: "fixtures/scans/scan-2-pages.pdf",
	contentType: "application/pdf",
	filename: "scan.pdf",
};

export interface ScanEmail {
	/** The sender is scanner@domain, the device mfp-4000.domain. */
	domain: string;
	/** The device's Date header, as RFC 5322 writes it. */
	date: string;
	messageId: string;
	attachment?: typeof SCAN_ATTACHMENT;
	/** Our Postfix's record: the client's address and the time it wrote in its Received header. */
	relayed?: { client: string; at: string };
}

/** `ms` as a Date header writes it, in UTC. */
export const rfc2822 = (ms: number) => new Date(ms).toUTCString().replace("GMT", "+0000");

function relayHeaders(domain: string, relayed: NonNullable<ScanEmail["relayed"]>): string[] {
	return [
		`Return-Path: <scanner@${domain}>`,
		`Received: from mfp-4000.${domain} (unknown [${relayed.client}])`,
		"\tby mail.testfax.test (Postfix) with ESMTPS id 4Fx9Q2Zk1sz9",
		`\tfor <fax@testfax.test>; ${relayed.at}`,
	];
}

export async function scanEmailMessage({
	domain,
	date,
	messageId,
	attachment = SCAN_ATTACHMENT,
	relayed,
}: ScanEmail) {
	const encoded = Buffer.from(await Bun.file(join(ROOT, attachment.path)).arrayBuffer())
		.toString("base64")
		.replace(/.{76}/g, "$&\r\n");
	return [
		...(relayed === undefined ? [] : relayHeaders(domain, relayed)),
		`From: Office scanner <scanner@${domain}>`,
		"To: fax@testfax.test",
		"Subject: Scan from MFP-4000",
		`Date: ${date}`,
		`Message-ID: <${messageId}@${domain}>`,
		"MIME-Version: 1.0",
		'Content-Type: multipart/mixed; boundary="b1"',
		"",
		"--b1",
		"Content-Type: text/plain",
		"",
		"Scanned document attached.",
		"--b1",
		`Content-Type: ${attachment.contentType}; name="${attachment.filename}"`,
		"Content-Transfer-Encoding: base64",
		`Content-Disposition: attachment; filename="${attachment.filename}"`,
		"",
		encoded,
		"--b1--",
		"",
	].join("\r\n");
}
