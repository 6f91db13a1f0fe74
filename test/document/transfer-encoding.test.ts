import { describe, expect, test } from "bun:test";
import { decodeTransferEncoding } from "../../lib/document/transfer-encoding.ts";

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));

describe("decodeTransferEncoding", () => {
	test.each([0, 1, 2, 3, 4, 100, 4099])("base64 of %d bytes in 76-character lines, CRLF or LF", (length) => {
		const bytes = Uint8Array.from({ length }, (_, index) => (index * 131 + 7) % 256);
		const encoded = Buffer.from(bytes).toString("base64");
		for (const lineBreak of ["\r\n", "\n"]) {
			const lines = encoded.replace(/.{76}/g, `$&${lineBreak}`);
			expect(decodeTransferEncoding(latin1(`${lines}${lineBreak}`), "base64")).toEqual(bytes);
		}
	});

	test("quoted-printable: escapes, soft line breaks, hard line breaks and a stray equals sign", () => {
		const encoded = "%PDF-1.4=0D=0A=E2=e3 x=\r\ny=  \nz\r\nq = r=";
		expect(decodeTransferEncoding(latin1(encoded), "quoted-printable")).toEqual(
			latin1("%PDF-1.4\r\n\xe2\xe3 xyz\r\nq = r"),
		);
	});

	test("7bit, 8bit and binary bodies are their content", () => {
		const body = latin1("%PDF-1.4\r\n\xff");
		for (const encoding of ["7bit", "8bit", "binary"]) {
			expect(decodeTransferEncoding(body, encoding)).toBe(body);
		}
	});
});
