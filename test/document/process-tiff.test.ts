import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { processDocument } from "../../lib/document/index.ts";
import { MAX_PAGES } from "../../lib/document/limits.ts";
import { readTiffDirectories, TIFF_TAG } from "../../lib/document/tiff-directories.ts";
import {
	darkBox,
	jpegInfo,
	mismatchesAwayFromEdges,
	pdfiumPage,
	pdfPageSizes,
	processed,
	renderedPage,
	tiffPage,
	withPoppler,
} from "./inspect.ts";
import {
	bilevelEntries,
	faxTiff,
	handMadeTiff,
	type ModifiedHuffmanRow,
	modifiedHuffmanTiff,
	tiffcp,
	withTiffTag,
} from "./make-files.ts";

const FIXTURES = `${import.meta.dir}/../../fixtures/ingest`;

async function fixture(name: string): Promise<Uint8Array> {
	return Bun.file(`${FIXTURES}/${name}`).bytes();
}

/** The strips of every frame of a TIFF, as stored. */
function strips(tiff: Uint8Array): Uint8Array[] {
	const directories = readTiffDirectories(tiff, MAX_PAGES);
	if (!Array.isArray(directories)) throw new Error(`TIFF is ${directories}`);
	return directories.flatMap((directory) => {
		const offsets = directory.values(TIFF_TAG.stripOffsets, 10_000) ?? [];
		const lengths = directory.values(TIFF_TAG.stripByteCounts, 10_000) ?? [];
		return offsets.map((offset, index) => tiff.subarray(offset, offset + (lengths[index] ?? 0)));
	});
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
	return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle);
}

/** How often each CCITT K value occurs in the PDF's image dictionaries. */
function ccittKs(pdf: Uint8Array): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const [, k] of new TextDecoder("latin1")
		.decode(pdf)
		.matchAll(/\/CCITTFaxDecode \/DecodeParms << \/K (-?\d+)/g)) {
		counts[k ?? ""] = (counts[k ?? ""] ?? 0) + 1;
	}
	return counts;
}

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
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 795 });
		// Its 9 strips a page are copied into the PDF as they are, not decoded.
		const stored = strips(tiff);
		expect(stored.length).toBe(27);
		expect(stored.filter((strip) => !contains(result.pdf, strip))).toEqual([]);
		expect(ccittKs(result.pdf)).toEqual({ "-1": 27 });
		// Black stays black: page 1's bar, 10–30 % across and 10–20 % down.
		expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 600, height: 300 })).toEqual({
			left: 60,
			top: 79,
			width: 120,
			height: 80,
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
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 826 });
		// The one-inch square is as high as it is wide.
		const square = await darkBox(result.thumbnail, { left: 280, top: 380, width: 160, height: 160 });
		expect(square).toEqual({ left: 300, top: 413, width: 71, height: 71 });
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
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 289 });
		expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 600, height: 289 })).toEqual({
			left: 35,
			top: 29,
			width: 139,
			height: 58,
		});
		await expectPagesLikeTiff(tiff, result.pdf, ["609.882 x 293.878", "609.882 x 293.878"]);
	});

	test("a real HylaFAX file of a call cut during page 2: page 1, and not the 0-row page HylaFAX kept unconfirmed", async () => {
		// fixtures/hylafax/killmidpage: "RECV keeping unconfirmed page" wrote a
		// second directory with ImageLength 0 and one strip of 0 bytes.
		const tiff = await Bun.file(`${FIXTURES}/../hylafax/killmidpage/received.tif`).bytes();
		const directories = readTiffDirectories(tiff, MAX_PAGES);
		expect(Array.isArray(directories) && directories.map((d) => d.first(TIFF_TAG.imageLength))).toEqual([
			400, 0,
		]);
		const result = await processed(tiff);
		expect(result.pageCount).toBe(1);
		expect(await pdfPageSizes(result.pdf)).toEqual([[609.88, 293.88]]);
	});

	test("a TIFF whose only page has 0 rows is still corrupt", async () => {
		const tiff = await Bun.file(`${FIXTURES}/../hylafax/killmidpage/received.tif`).bytes();
		// The file's header pointed at its second directory, the empty page, alone.
		const alone = tiff.slice();
		new DataView(alone.buffer).setUint32(4, 1016, true);
		expect(await processDocument(alone)).toEqual({ ok: false, reason: "truncated or corrupt TIFF" });
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
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 776 });
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

/**
 * Every page of the stored PDF, as poppler sizes and renders it, against the
 * source TIFF's frame decoded by libtiff: same size in points (from the
 * resolution), same pixels.
 */
async function expectPagesLikeTiff(tiff: Uint8Array, pdf: Uint8Array, pageSizes: string[]): Promise<void> {
	await withPoppler(pdf, async (poppler) => {
		expect(await poppler.pageSizes()).toEqual(pageSizes);
		for (let page = 0; page < pageSizes.length; page++) {
			const source = await tiffPage(tiff, page);
			const rendered = await poppler.render(page, source.width, source.height);
			expect({ page, mismatches: mismatchesAwayFromEdges(source, rendered) }).toEqual({
				page,
				mismatches: 0,
			});
		}
	});
}

// Each page is rendered at full size and compared pixel by pixel.
const RENDERING_TIMEOUT_MS = 30_000;

describe("CCITT pages go into the PDF undecoded and render as the source TIFF", () => {
	const FINE_PAGE = "609.882 x 808.163";

	test(
		"multi-page G3 fax as HylaFAX and Asterisk store it: T.4 2-D, fine mode, 18 strips a page (fixture)",
		async () => {
			const tiff = await fixture("fax-g3-2d-fine.tif");
			const result = await processed(tiff);
			expect(result.pageCount).toBe(3);
			// Two-dimensional T.4, one image per strip; the strips are stored
			// lowest bit first and so are copied bit-reversed.
			expect(ccittKs(result.pdf)).toEqual({ "4": 54 });
			await expectPagesLikeTiff(tiff, result.pdf, [FINE_PAGE, FINE_PAGE, FINE_PAGE]);
			// PDFium, which renders the thumbnails of PDFs, reads it the same.
			for (let page = 0; page < 3; page++) {
				const source = await tiffPage(tiff, page);
				const rendered = await pdfiumPage(result.pdf, page, source.width, source.height);
				expect({ page, mismatches: mismatchesAwayFromEdges(source, rendered) }).toEqual({
					page,
					mismatches: 0,
				});
			}
			expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 795 });
			// The cover sheet's "FAX" heading, top left.
			expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 600, height: 100 })).toEqual({
				left: 56,
				top: 54,
				width: 54,
				height: 25,
			});
		},
		RENDERING_TIMEOUT_MS,
	);

	test.each([
		["T.4 1-D", ["-c", "g3:1d"], { "0": 18 }],
		["T.4 1-D with fill bits before each EOL", ["-c", "g3:1d:fill"], { "0": 18 }],
		["T.4 2-D without fill bits, highest bit first", ["-c", "g3:2d", "-f", "msb2lsb"], { "4": 18 }],
		[
			"T.6 (G4), lowest bit first, 100 rows a strip",
			["-c", "g4", "-f", "lsb2msb", "-r", "100"],
			{ "-1": 22 },
		],
		["T.6 (G4), one strip a page", ["-c", "g4", "-r", "2200"], { "-1": 1 }],
	])(
		"%s",
		async (_, options, ks) => {
			const tiff = await tiffcp(await fixture("fax-g3-2d-fine.tif"), options, [2]);
			const result = await processed(tiff);
			expect(ccittKs(result.pdf)).toEqual(ks);
			await expectPagesLikeTiff(tiff, result.pdf, [FINE_PAGE]);
		},
		RENDERING_TIMEOUT_MS,
	);

	test(
		"white on black (PhotometricInterpretation MinIsBlack) stays white on black",
		async () => {
			const tiff = withTiffTag(await tiffcp(await fixture("fax-g3-2d-fine.tif"), ["-c", "g4"], [0]), 262, 1);
			const result = await processed(tiff);
			expect(new TextDecoder("latin1").decode(result.pdf)).toContain("/BlackIs1 true");
			await expectPagesLikeTiff(tiff, result.pdf, [FINE_PAGE]);
			expect(await darkBox(result.thumbnail, { left: 0, top: 0, width: 40, height: 40 })).toEqual({
				left: 0,
				top: 0,
				width: 40,
				height: 40,
			});
		},
		RENDERING_TIMEOUT_MS,
	);

	test(
		"Modified Huffman (TIFF compression 2), several strips: rows byte-aligned (EncodedByteAlign)",
		async () => {
			const rows = [
				...Array<ModifiedHuffmanRow>(40).fill("white"),
				...Array<ModifiedHuffmanRow>(80).fill("bar-right"),
				...Array<ModifiedHuffmanRow>(40).fill("bar-left"),
				...Array<ModifiedHuffmanRow>(40).fill("white"),
			];
			const tiff = modifiedHuffmanTiff(rows, 64);
			const result = await processed(tiff);
			expect(ccittKs(result.pdf)).toEqual({ "0": 4 });
			expect(new TextDecoder("latin1").decode(result.pdf).match(/\/EncodedByteAlign true/g)?.length).toBe(4);
			await expectPagesLikeTiff(tiff, result.pdf, ["609.882 x 73.4694"]);
		},
		RENDERING_TIMEOUT_MS,
	);

	test.each([
		["a strip per row", ["-c", "g4", "-r", "1"]],
		["tiles", ["-c", "g4", "-t"]],
		["LZW", ["-c", "lzw"]],
	])(
		"a page in %s is decoded and re-encoded as one G4 image",
		async (_, options) => {
			const tiff = await tiffcp(await fixture("fax-g3-2d-fine.tif"), options, [1]);
			const result = await processed(tiff);
			expect(ccittKs(result.pdf)).toEqual({ "-1": 1 });
			await expectPagesLikeTiff(tiff, result.pdf, [FINE_PAGE]);
		},
		RENDERING_TIMEOUT_MS,
	);
});

describe("TIFF structure checked before anything is decoded", () => {
	test("a strip reaching past the end of the file is truncated", async () => {
		const entries = bilevelEntries(1728, 100).map((entry) =>
			entry.tag === 279 ? { ...entry, values: [1_000_000] } : entry,
		);
		expect(await processDocument(handMadeTiff([bilevelEntries(1728, 100), entries]))).toEqual({
			ok: false,
			reason: "TIFF page 2 is truncated or corrupt",
		});
	});

	test("a page with fewer strips than its rows need is truncated", async () => {
		const entries = bilevelEntries(1728, 100).map((entry) =>
			entry.tag === 278 ? { ...entry, values: [10] } : entry,
		);
		expect(await processDocument(handMadeTiff([entries]))).toEqual({
			ok: false,
			reason: "TIFF page 1 is truncated or corrupt",
		});
	});

	test("pages sharing their strips may not add up to more data than the file holds", async () => {
		const page = bilevelEntries(1728, 100).map((entry) =>
			entry.tag === 273 ? { ...entry, values: [0] } : entry.tag === 279 ? { ...entry, values: [300] } : entry,
		);
		const tiff = handMadeTiff([page, page, page]);
		expect(tiff.length).toBeGreaterThan(300);
		expect(tiff.length).toBeLessThan(900);
		expect(await processDocument(tiff)).toEqual({ ok: false, reason: "truncated or corrupt TIFF" });
	});

	test("a very long page gets the thumbnail of its top part", async () => {
		const tiff = await faxTiff({ pages: 1, width: 1728, height: 12_000, xDpi: 204, yDpi: 196 });
		const result = await processed(tiff);
		expect(await jpegInfo(result.thumbnail)).toEqual({ format: "jpeg", width: 600, height: 2400 });
	});
});
