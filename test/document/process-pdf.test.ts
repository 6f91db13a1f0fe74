import { beforeAll, describe, expect, test } from "bun:test";
import { PDFiumLibrary } from "@hyzyla/pdfium";
import {
	concatTransformationMatrix,
	degrees,
	drawObject,
	PDFDocument,
	popGraphicsState,
	pushGraphicsState,
} from "pdf-lib";
import { processDocument } from "../../lib/document/index.ts";
import { MAX_PAGES, MAX_PDFIUM_WORKING_BYTES } from "../../lib/document/limits.ts";
import { darkBox, jpegInfo, pdfPageSizes, processed } from "./inspect.ts";
import { A4_POINTS, contentBombPdf, encryptedPdf, latin1, textPdf } from "./make-files.ts";

const LETTER_POINTS: [number, number] = [612, 792];

describe("processDocument with a PDF", () => {
	let threePages: Uint8Array;
	beforeAll(async () => {
		threePages = await textPdf([A4_POINTS, LETTER_POINTS, A4_POINTS]);
	});

	test("is stored as received, with its page count and a thumbnail of page 1", async () => {
		const result = await processed(threePages);
		expect(result.pageCount).toBe(3);
		expect(result.pdf).toBe(threePages);
		expect(await pdfPageSizes(result.pdf)).toEqual([
			[595.28, 841.89],
			[612, 792],
			[595.28, 841.89],
		]);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 849 });
		// The 24 pt heading, 50 pt from the left and 100 pt from the top.
		const heading = await darkBox(result.thumbnail, { left: 0, top: 0, width: 600, height: 200 });
		expect(heading).toEqual({ left: 51, top: 83, width: 168, height: 23 });
	});

	test("a landscape first page gives a landscape thumbnail", async () => {
		const result = await processed(await textPdf([[841.89, 595.28], A4_POINTS]));
		expect(result.pageCount).toBe(2);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 424 });
	});

	test("a page turned by /Rotate is shown turned, as viewers show it", async () => {
		const pdf = await PDFDocument.load(await textPdf([A4_POINTS]));
		pdf.getPage(0).setRotation(degrees(90));
		const result = await processed(await pdf.save());
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 424 });
	});

	test("a very long page is shown by its top part", async () => {
		const result = await processed(await textPdf([[612, 9000]]));
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 2400 });
	});

	test("a PDF needing a password to open is encrypted", async () => {
		const pdf = encryptedPdf("secret", "owner");
		// It is a real encrypted PDF: it opens with its password.
		const pdfium = await PDFiumLibrary.init();
		const document = await pdfium.loadDocument(pdf, "secret");
		expect(document.getPage(0).getText()).toBe("Secret fax");
		document.destroy();
		pdfium.destroy();

		expect(await processDocument(pdf)).toEqual({ ok: false, reason: "PDF is encrypted" });
	});

	test("a PDF encrypted only against editing opens for everyone, so it is accepted", async () => {
		const result = await processed(encryptedPdf("", "owner"));
		expect(result.pageCount).toBe(1);
		// 595 × 842 pt.
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 849 });
	});

	test("truncated", async () => {
		const cut = threePages.subarray(0, Math.floor(threePages.length * 0.6));
		expect(await processDocument(cut)).toEqual({ ok: false, reason: "truncated or corrupt PDF" });
	});

	test("corrupt despite a proper ending", async () => {
		const pdf = latin1("%PDF-1.7\nthis is not a PDF body\n%%EOF\n");
		expect(await processDocument(pdf)).toEqual({ ok: false, reason: "truncated or corrupt PDF" });
	});

	test("a text file renamed .pdf", async () => {
		const text = latin1("Dear operator,\nplease fax this letter.\n");
		expect(await processDocument(text)).toEqual({ ok: false, reason: "not a PDF or TIFF file" });
	});

	test("an empty file", async () => {
		expect(await processDocument(new Uint8Array())).toEqual({ ok: false, reason: "file is empty" });
	});

	test("no pages", async () => {
		const pdf = await (await PDFDocument.create()).save({ addDefaultPage: false });
		expect(await processDocument(pdf)).toEqual({ ok: false, reason: "PDF has no pages" });
	});

	test("too many pages", async () => {
		const pdf = await textPdf(Array.from({ length: MAX_PAGES + 1 }, () => A4_POINTS));
		expect(await processDocument(pdf)).toEqual({ ok: false, reason: "PDF has more than 1000 pages" });
	});

	test("a huge page anywhere is rejected", async () => {
		const pdf = await textPdf([A4_POINTS, [20_000, 20_000]]);
		expect(await processDocument(pdf)).toEqual({ ok: false, reason: "PDF page 2 is too large" });
	});

	test("decompression bomb: a huge image on page 1 is rejected before rendering", async () => {
		const pdf = await PDFDocument.create();
		const page = pdf.addPage(A4_POINTS);
		// 40,000 × 40,000 1-bit pixels, declared in a few bytes.
		const image = pdf.context.stream(new Uint8Array(16), {
			Type: "XObject",
			Subtype: "Image",
			Width: 40_000,
			Height: 40_000,
			ColorSpace: "DeviceGray",
			BitsPerComponent: 1,
			Filter: "CCITTFaxDecode",
			DecodeParms: { K: -1, Columns: 40_000, Rows: 40_000 },
		});
		const name = page.node.newXObject("Bomb", pdf.context.register(image));
		page.pushOperators(
			pushGraphicsState(),
			concatTransformationMatrix(595, 0, 0, 842, 0, 0),
			drawObject(name),
			popGraphicsState(),
		);
		expect(await processDocument(await pdf.save())).toEqual({
			ok: false,
			reason: "PDF page 1 has images too large to render",
		});
	});

	test("decompression bomb: a content stream inflating beyond PDFium's heap limit", async () => {
		const pdf = await contentBombPdf(MAX_PDFIUM_WORKING_BYTES / 1024 / 1024);
		expect(pdf.length).toBeLessThan(1_000_000);
		expect(await processDocument(pdf)).toEqual({
			ok: false,
			reason: "PDF needs too much memory to render",
		});
		// PDFium aborted; the next document gets a fresh one.
		expect((await processed(threePages)).pageCount).toBe(3);
	});
});
