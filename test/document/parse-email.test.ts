import { describe, expect, test } from "bun:test";
import { parseFaxEmail, processDocument } from "../../lib/document/index.ts";
import { faxTiff, latin1 } from "./make-files.ts";

const FIXTURES = `${import.meta.dir}/../../fixtures/ingest`;

async function fixture(name: string): Promise<Uint8Array> {
	return new Uint8Array(await Bun.file(`${FIXTURES}/${name}`).arrayBuffer());
}

function message(parts: { headers: string[]; body: string }[]): Uint8Array {
	const lines = [
		"From: Fax Gateway <gateway@fax.example>",
		"Date: Mon, 23 Nov 2026 07:00:00 -0500",
		"Subject: Fax from +1 555 123 4567",
		"MIME-Version: 1.0",
		'Content-Type: multipart/mixed; boundary="b"',
		"",
		...parts.flatMap(({ headers, body }) => ["--b", ...headers, "", body]),
		"--b--",
		"",
	];
	return latin1(lines.join("\r\n"));
}

function base64(bytes: Uint8Array): string {
	return Buffer.from(bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
}

describe("parseFaxEmail", () => {
	test("scan-to-email message with a PDF attachment (fixture)", async () => {
		const email = await parseFaxEmail(await fixture("scan-to-email.eml"));
		expect(email.sender).toBe("Scanner@Example.com");
		expect(email.receivedAt).toEqual(new Date("2026-11-20T08:15:30Z"));
		expect(email.messageId).toBe("<20261120091530.4711@mfp.office.example.com>");
		expect(email.relayedAt).toEqual(new Date("2026-11-20T08:15:31Z"));
		expect(email.attachment?.filename).toBe("scan_0001.pdf");
		expect(email.attachment?.bytes.length).toBe(935);
		const document = await processDocument(email.attachment?.bytes ?? new Uint8Array());
		expect(document.ok && document.pageCount).toBe(2);
	});

	test("message without attachment (fixture)", async () => {
		expect(await parseFaxEmail(await fixture("no-attachment.eml"))).toEqual({
			sender: "jane@example.org",
			receivedAt: new Date("2026-11-21T18:02:03Z"),
			messageId: "<forgot.1@example.org>",
			relayedAt: null,
			firstReceived: null,
			returnPath: null,
			attachment: null,
			searchLimit: null,
		});
	});

	test("a TIFF sent as application/octet-stream without a name is found by its bytes", async () => {
		const tiff = await faxTiff({ pages: 2, width: 1728, height: 1143, xDpi: 204, yDpi: 98 });
		const email = await parseFaxEmail(
			message([
				{ headers: ["Content-Type: text/plain"], body: "You have received a fax." },
				{
					headers: ["Content-Type: application/octet-stream", "Content-Transfer-Encoding: base64"],
					body: base64(tiff),
				},
			]),
		);
		expect(email.sender).toBe("gateway@fax.example");
		expect(email.receivedAt).toEqual(new Date("2026-11-23T12:00:00Z"));
		expect(email.attachment?.filename).toBeNull();
		expect(email.attachment?.bytes).toEqual(tiff);
	});

	test("the first fax document wins, other attachments are skipped", async () => {
		const email = await parseFaxEmail(
			message([
				{
					headers: ['Content-Type: text/plain; name="cover.txt"', "Content-Disposition: attachment"],
					body: "Cover page",
				},
				{
					headers: [
						'Content-Type: application/octet-stream; name="logo.bin"',
						"Content-Transfer-Encoding: base64",
					],
					body: base64(latin1("not a document")),
				},
				{
					headers: [
						'Content-Type: application/octet-stream; name="FAX_0042.TIF"',
						"Content-Transfer-Encoding: base64",
					],
					body: base64(latin1("II*\u0000first")),
				},
				{
					headers: ['Content-Type: application/pdf; name="second.pdf"', "Content-Transfer-Encoding: base64"],
					body: base64(latin1("%PDF-second")),
				},
			]),
		);
		expect(email.attachment?.filename).toBe("FAX_0042.TIF");
		expect(email.attachment?.bytes).toEqual(latin1("II*\u0000first"));
	});

	test("nested parts, bare LF line ends and a forwarded message: the fax inside is found", async () => {
		const forwarded = [
			"From: Fax Gateway <gateway@fax.example>",
			'Content-Type: multipart/mixed; boundary="inner"',
			"",
			"--inner",
			"Content-Type: text/plain",
			"",
			"--inner-not-a-delimiter",
			"--inner",
			'Content-Type: image/tiff; name="fax.tif"',
			"Content-Transfer-Encoding: base64",
			"",
			base64(latin1("II*\u0000forwarded")),
			"--inner--",
		];
		const email = await parseFaxEmail(
			latin1(
				[
					"From: Jane <jane@example.org>",
					"Date: Mon, 23 Nov 2026 07:00:00 -0500",
					'Content-Type: multipart/mixed; boundary="outer"',
					"",
					"--outer",
					'Content-Type: multipart/alternative; boundary="alt"',
					"",
					"--alt",
					"Content-Type: text/plain",
					"",
					"see below",
					"--alt--",
					"--outer  ",
					"Content-Type: message/rfc822",
					"",
					...forwarded,
					"--outer--",
					"",
				].join("\n"),
			),
		);
		expect(email.sender).toBe("jane@example.org");
		expect(email.attachment).toEqual({
			filename: "fax.tif",
			bytes: latin1("II*\u0000forwarded"),
			contentType: 'image/tiff; name="fax.tif"',
		});
	});

	test("a fax after many large attachments that are not faxes", async () => {
		const junk = new Uint8Array(256 * 1024).fill(0x5a);
		const email = await parseFaxEmail(
			message([
				...Array.from({ length: 40 }, (_, index) => ({
					headers: [
						"Content-Type: application/octet-stream",
						`Content-Disposition: attachment; filename="junk-${index}.bin"`,
						"Content-Transfer-Encoding: base64",
					],
					body: base64(junk),
				})),
				{
					headers: ["Content-Type: application/pdf", "Content-Transfer-Encoding: quoted-printable"],
					body: "%PDF-1.4=0D=0Alast",
				},
			]),
		);
		expect(email.attachment).toEqual({
			filename: null,
			bytes: latin1("%PDF-1.4\r\nlast"),
			contentType: "application/pdf",
		});
	});

	test("a multipart message without a boundary, or cut off before its closing delimiter", async () => {
		const noBoundary = await parseFaxEmail(
			latin1("From: a@example.org\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\n\r\nbody\r\n"),
		);
		expect(noBoundary.attachment).toBeNull();
		const cutOff = await parseFaxEmail(
			latin1(
				"From: a@example.org\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 cut",
			),
		);
		expect(cutOff.attachment).toEqual({
			filename: null,
			bytes: latin1("%PDF-1.4 cut"),
			contentType: "application/pdf",
		});
	});

	test("the first Received header is the relay's time: the last hop's comment and folding do not matter", async () => {
		const email = await parseFaxEmail(
			latin1(
				"Received: from a (a [127.0.0.1])\r\n\tby mx.test.example (Postfix) with ESMTP id 4Xk2;\r\n\tWed, 25 Nov 2026 10:12:13 +0000 (UTC)\r\nReceived: by a; Tue, 24 Nov 2026 09:00:00 +0000\r\nMessage-ID:   \r\n\r\nbody",
			),
		);
		expect(email.relayedAt).toEqual(new Date("2026-11-25T10:12:13Z"));
		expect(email.firstReceived).toBe(
			"from a (a [127.0.0.1]) by mx.test.example (Postfix) with ESMTP id 4Xk2; Wed, 25 Nov 2026 10:12:13 +0000 (UTC)",
		);
		expect(email.messageId).toBeNull();
		const noTime = await parseFaxEmail(latin1("Received: from a by b\r\n\r\nbody"));
		expect(noTime.relayedAt).toBeNull();
	});

	test("sender and date missing or unreadable", async () => {
		const email = await parseFaxEmail(latin1("Subject: hello\r\nDate: yesterday\r\n\r\nbody\r\n"));
		expect(email).toEqual({
			sender: null,
			receivedAt: null,
			messageId: null,
			relayedAt: null,
			firstReceived: null,
			returnPath: null,
			attachment: null,
			searchLimit: null,
		});
	});

	test("a PDF past the MIME part or depth limits: not found, and the limit named", async () => {
		const pdf = [
			'Content-Type: application/pdf; name="scan.pdf"',
			"Content-Transfer-Encoding: base64",
			"",
			base64(latin1("%PDF-1.4 deep")),
		];
		const nested = (depth: number): string[] =>
			depth === 0
				? pdf
				: [
						`Content-Type: multipart/mixed; boundary="d${depth}"`,
						"",
						`--d${depth}`,
						...nested(depth - 1),
						`--d${depth}--`,
					];
		const deep = await parseFaxEmail(latin1(["From: <deep@scan.example>", ...nested(50), ""].join("\r\n")));
		expect([deep.sender, deep.attachment, deep.searchLimit]).toEqual([
			"deep@scan.example",
			null,
			"email nests MIME parts more than 32 deep",
		]);
		const parts = Array.from({ length: 5000 }, () => ({
			headers: ["Content-Type: text/plain"],
			body: "page",
		}));
		const many = await parseFaxEmail(message([...parts, { headers: pdf.slice(0, 2), body: pdf[3] ?? "" }]));
		expect([many.attachment, many.searchLimit]).toEqual([
			null,
			"email has more than 1000 MIME parts before a PDF or TIFF attachment",
		]);
		const within = await parseFaxEmail(
			message([...parts.slice(0, 900), { headers: pdf.slice(0, 2), body: pdf[3] ?? "" }]),
		);
		expect([within.attachment?.filename, within.searchLimit]).toEqual(["scan.pdf", null]);
	});
});
