import { describe, expect, test } from "bun:test";
import { detectFormat } from "../../lib/document/index.ts";
import { latin1 } from "./make-files.ts";

describe("detectFormat", () => {
	test("PDF by its header, also after leading junk", () => {
		expect(detectFormat(latin1("%PDF-1.7\n"))).toBe("pdf");
		expect(detectFormat(latin1(`${" ".repeat(500)}%PDF-1.4\n`))).toBe("pdf");
		expect(detectFormat(latin1(`${" ".repeat(1100)}%PDF-1.4\n`))).toBe("unknown");
	});

	test("TIFF in both byte orders", () => {
		expect(detectFormat(Uint8Array.of(0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0))).toBe("tiff");
		expect(detectFormat(Uint8Array.of(0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8))).toBe("tiff");
		// BigTIFF is not a fax format.
		expect(detectFormat(Uint8Array.of(0x49, 0x49, 0x2b, 0x00, 8, 0, 0, 0))).toBe("unknown");
	});

	test("email by its header block", () => {
		const headers =
			"Received: from a\r\n\tby b; Fri, 20 Nov 2026 09:15:31 +0100\r\nFrom: a@b.example\r\n\r\nbody";
		expect(detectFormat(latin1(headers))).toBe("email");
		// As a pipe transport may deliver it, with the mbox envelope line.
		expect(detectFormat(latin1(`From a@b.example Fri Nov 20 09:15:31 2026\n${headers}`))).toBe("email");
		// Header syntax alone is not enough.
		expect(detectFormat(latin1("Note: call back\r\n\r\nthanks"))).toBe("unknown");
		expect(detectFormat(latin1("Dear operator,\nFrom: me\n"))).toBe("unknown");
	});

	test("an .eml name makes anything that is not PDF or TIFF an email", () => {
		expect(detectFormat(latin1("Note: call back\r\n"), "message.EML")).toBe("email");
		expect(detectFormat(latin1("%PDF-1.7\n"), "message.eml")).toBe("pdf");
		expect(detectFormat(latin1("Note: call back\r\n"), "message.txt")).toBe("unknown");
	});

	test("empty", () => {
		expect(detectFormat(new Uint8Array())).toBe("unknown");
	});
});
