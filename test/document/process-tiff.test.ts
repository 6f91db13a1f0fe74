import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { processDocument } from "../../lib/document/index.ts";
import { MAX_PAGES } from "../../lib/document/limits.ts";
import { darkBox, jpegInfo, pdfPageSizes, processed, renderedPage } from "./inspect.ts";
import { bilevelEntries, faxTiff, handMadeTiff } from "./make-files.ts";

const FIXTURES = `${import.meta.dir}/../../fixtures/ingest`;

describe("processDocument with a TIFF", () => {
	test("multi-page CCITT G4 fax, fine resolution: one PDF page per frame", async () => {
		const tiff = await faxTiff({ pages: 3, width: 1728, height: 2200, xDpi: 204, yDpi: 196 });
		const result = await processed(tiff);
		expect(result.pageCount).toBe(3);
		// 1728 px / 204 dpi and 2200 px / 196 dpi, in points.
		expect(await pdfPageSizes(result.pdf)).toEqual([
			[609.88, 808.16],
			[609.88, 808.16],
			[609.88, 808.16],
		]);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 300, height: 398 });
		// Kept as G4, not inflated into an 8-bit image.
		expect(result.pdf.length).toBeLessThan(tiff.length + 2000);
		// Black stays black: page 1's bar, 10–30 % across and 10–20 % down.
		expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 300, height: 150 })).toEqual({
			left: 30,
			top: 40,
			width: 60,
			height: 40,
		});
		// Frames keep their order: page 3's bar is 10–70 % across.
		const third = await renderedPage(result.pdf, 2, 300, 398);
		expect(await darkBox(third, { left: 0, top: 0, width: 300, height: 150 })).toEqual({
			left: 30,
			top: 40,
			width: 180,
			height: 40,
		});
	});

	test("normal-resolution fax (204 × 98 dpi) is not stretched", async () => {
		const tiff = await faxTiff({ pages: 1, width: 1728, height: 1143, xDpi: 204, yDpi: 98 });
		const result = await processed(tiff);
		expect(result.pageCount).toBe(1);
		expect(await pdfPageSizes(result.pdf)).toEqual([[609.88, 839.76]]);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 300, height: 413 });
		// The one-inch square is as high as it is wide.
		const square = await darkBox(result.thumbnail, { left: 140, top: 190, width: 80, height: 80 });
		expect(square).toEqual({ left: 150, top: 207, width: 35, height: 35 });
	});

	test("HylaFAX-style G3 2D fax with reversed fill order (fixture)", async () => {
		const tiff = new Uint8Array(await Bun.file(`${FIXTURES}/fax-g3-2d.tif`).arrayBuffer());
		const result = await processed(tiff);
		expect(result.pageCount).toBe(2);
		// 1728 × 400 px at 204 × 98 dpi.
		expect(await pdfPageSizes(result.pdf)).toEqual([
			[609.88, 293.88],
			[609.88, 293.88],
		]);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 300, height: 145 });
		expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 300, height: 145 })).toEqual({
			left: 17,
			top: 14,
			width: 70,
			height: 30,
		});
	});

	test("greyscale scan is embedded as JPEG", async () => {
		const tiff = await sharp({
			create: { width: 850, height: 1100, channels: 3, background: "#c0c0c0" },
		})
			.greyscale()
			.tiff({ compression: "lzw", xres: 100 / 25.4, yres: 100 / 25.4 })
			.toBuffer();
		const result = await processed(new Uint8Array(tiff));
		expect(result.pageCount).toBe(1);
		expect(await pdfPageSizes(result.pdf)).toEqual([[612, 792]]);
		expect(new TextDecoder().decode(result.pdf)).toContain("/DCTDecode");
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 300, height: 388 });
	});

	test("decompression bomb: a huge page is rejected before decoding", async () => {
		const tiff = handMadeTiff([bilevelEntries(60_000, 60_000)]);
		expect(await processDocument(tiff)).toEqual({ ok: false, reason: "TIFF page 1 is too large" });
	});

	test("a directory chain that loops is corrupt", async () => {
		const tiff = handMadeTiff([bilevelEntries(8, 8), bilevelEntries(8, 8)], () => 0);
		expect(await processDocument(tiff)).toEqual({ ok: false, reason: "truncated or corrupt TIFF" });
	});

	test("too many pages", async () => {
		const tiff = handMadeTiff(Array.from({ length: MAX_PAGES + 1 }, () => bilevelEntries(8, 8)));
		expect(await processDocument(tiff)).toEqual({ ok: false, reason: "TIFF has more than 1000 pages" });
	});

	test("truncated TIFF", async () => {
		const tiff = await faxTiff({ pages: 3, width: 1728, height: 2200, xDpi: 204, yDpi: 196 });
		expect(await processDocument(tiff.subarray(0, Math.floor(tiff.length / 2)))).toEqual({
			ok: false,
			reason: "truncated or corrupt TIFF",
		});
	});

	test("image data that is not G4", async () => {
		const tiff = handMadeTiff([bilevelEntries(1728, 100)]);
		expect(await processDocument(tiff)).toEqual({ ok: false, reason: "TIFF page 1 is truncated or corrupt" });
	});
});
