import { describe, expect, test } from "bun:test";
import type { FaxEmail } from "../../lib/document/index.ts";
import { buildReport, safeFileName } from "../../lib/report/index.ts";

const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");

function email(firstReceived: string | null, contentType: string | null = "application/pdf"): FaxEmail {
	return {
		sender: "a@example.org",
		receivedAt: null,
		messageId: null,
		relayedAt: null,
		firstReceived,
		returnPath: null,
		attachment: { filename: "scan.pdf", bytes: PDF, contentType },
		searchLimit: null,
	};
}

function report(message: FaxEmail, relayedByUs = true) {
	return buildReport({ source: "email", bytes: new Uint8Array(), email: message, relayedByUs })?.email;
}

describe("what our Postfix's Received header says", () => {
	test("with smtpd_tls_received_header: protocol, cipher and the bits used", () => {
		const received =
			"from mfp.example.org (mfp.example.org [192.0.2.1]) (using TLSv1.2 with cipher ECDHE-RSA-AES128-GCM-SHA256 (128/128 bits)) (No client certificate requested) by mx (Postfix) with ESMTPS id 4Zx; Wed, 25 Nov 2026 10:00:00 +0000 (UTC)";
		expect(report(email(received))).toMatchObject({
			// The From address is a@example.org: its domain is said, never named.
			relayHost: "mfp.(your domain)",
			tls: { protocol: "TLSv1.2", cipher: "ECDHE-RSA-AES128-GCM-SHA256", bits: 128 },
		});
	});

	test("without it, ESMTPS (RFC 3848) still says TLS, ESMTP says none; a HELO name is never taken for the host", () => {
		const tls = report(
			email("from helo.example (unknown [192.0.2.1]) by mx (Postfix) with ESMTPS id 1; date"),
		);
		expect(tls).toMatchObject({
			relayHost: "helo.example (the name it gave itself; no verified name)",
			tls: { protocol: "TLS", cipher: null, bits: null },
		});
		const plain = report(
			email("from helo.example (host.example [192.0.2.1]) by mx (Postfix) with ESMTP id 1; date"),
		);
		expect(plain).toMatchObject({ relayHost: "host.example", tls: "none" });
	});

	test("a message our server did not relay, or a local pickup, says nothing of host or TLS", () => {
		const received = "from evil (trusted.example [192.0.2.1]) (using TLSv1.3 with cipher X (256/256 bits))";
		expect(report(email(received), false)).toMatchObject({ relayHost: null, tls: null });
		expect(report(email("by mx (Postfix, from userid 0) id 1; date"))).toMatchObject({
			relayHost: null,
			tls: null,
		});
	});

	test("the kind of test: T.37 only with application=faxbw on a TIFF; the MIME type as declared, lower case", () => {
		const tiff = new Uint8Array([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
		const of = (contentType: string) =>
			buildReport({
				source: "email",
				bytes: new Uint8Array(),
				email: { ...email(null), attachment: { filename: "f.tif", bytes: tiff, contentType } },
				relayedByUs: false,
			}).email;
		expect(of('image/TIFF; application="FAXBW"')).toMatchObject({
			test: "t37",
			mimeType: 'image/tiff; application="faxbw"',
		});
		expect(of("image/tiff; name=f.tif")).toMatchObject({ test: "tiff" });
		expect(of("image/tiff; x-application=faxbw")).toMatchObject({ test: "tiff" });
		expect(report({ ...email(null), attachment: null })).toMatchObject({
			test: "none",
			mimeType: null,
			attachmentBytes: null,
		});
	});
});

test("a file name keeps its last part, without control or direction characters, at most 120 characters", () => {
	expect(safeFileName("C:\\scans\\fax.tif")).toBe("fax.tif");
	expect(safeFileName("../../etc/passwd")).toBe("passwd");
	expect(safeFileName("a\u0000b\u202Ec\r\n.pdf")).toBe("abc.pdf");
	expect(safeFileName(`${"é".repeat(200)}.pdf`)).toBe("é".repeat(120));
	expect(safeFileName("dir/")).toBeNull();
});
