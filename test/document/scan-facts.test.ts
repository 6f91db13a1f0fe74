import { describe, expect, test } from "bun:test";
import { degrees, PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { parseFaxEmail, type ScanPage, scanFacts } from "../../lib/document/index.ts";
import { paperName } from "../../lib/document/paper-sizes.ts";
import { cleanText } from "../../lib/document/scan-facts.ts";
import { TIFF_TAG } from "../../lib/document/tiff-directories.ts";
import { runCommand } from "../../testkit/processes.ts";
import {
	A4_POINTS,
	encryptedPdf,
	handMadeTiff,
	latin1,
	type TiffEntry,
	textPdf,
	withTiffTag,
} from "./make-files.ts";

// fixtures/scans/make.sh made these with ImageMagick, img2pdf, Ghostscript
// and tiffcp, and says what each holds.
const SCANS = `${import.meta.dir}/../../fixtures/scans`;
const INGEST = `${import.meta.dir}/../../fixtures/ingest`;

function scan(name: string): Promise<Uint8Array> {
	return Bun.file(`${SCANS}/${name}`).bytes();
}

/** The TIFF-F attachment of the T.37 email fixture: fax-g3-2d.tif rewritten as MH by tiffcp. */
async function t37Attachment(): Promise<Uint8Array> {
	const email = await parseFaxEmail(await Bun.file(`${INGEST}/t37-tiff-f.eml`).bytes());
	if (email.attachment === null) throw new Error("t37-tiff-f.eml has no attachment");
	return email.attachment.bytes;
}

/** The byte counts of a TIFF's strips as libtiff's tiffinfo reads them. */
async function tiffinfoStripBytes(path: string): Promise<number[]> {
	const { stdout, code } = await runCommand(["tiffinfo", "-s", path], { cwd: SCANS, env: {} });
	expect(code).toBe(0);
	// "    0: [       8,      873]": each strip's offset and byte count.
	return [...stdout.matchAll(/^\s*\d+: \[\s*\d+,\s*(\d+)\]/gm)].map((match) => Number(match[1]));
}

const NO_IMAGE = { xDpi: null, yDpi: null, colour: null, compression: null, bytes: null };

const FAX_PAGE = {
	paper: null,
	widthMm: 215,
	heightMm: 104,
	xDpi: 204,
	yDpi: 98,
	colour: "black and white",
	text: false,
} as const;

describe("scanFacts of a PDF", () => {
	test("img2pdf's two-page scan: an A4 greyscale JPEG at 300 dpi, a US Letter G4 page at 200 dpi", async () => {
		const facts = await scanFacts(await scan("scan-2-pages.pdf"), "pdf");
		const jpegBytes = Bun.file(`${SCANS}/page1-a4-300dpi-grey.jpg`).size;
		const g4Strips = await tiffinfoStripBytes("page2-letter-200dpi-g4.tif");
		expect(jpegBytes).toBe(51_950);
		expect(g4Strips).toEqual([873]);
		expect(facts).toEqual({
			pages: [
				{
					paper: "A4",
					widthMm: 210,
					heightMm: 297,
					xDpi: 300,
					yDpi: 300,
					colour: "greyscale",
					compression: "JPEG",
					bytes: jpegBytes,
					text: false,
				},
				{
					paper: "US Letter",
					widthMm: 216,
					heightMm: 279,
					xDpi: 200,
					yDpi: 200,
					colour: "black and white",
					compression: "CCITT G4",
					bytes: 873,
					text: false,
				},
			],
			producer: "img2pdf 0.4.4",
			creator: "Example MFP 4000 (firmware 2.04)",
		});
		expect("tiffF" in facts).toBe(false);
	});

	test("an OCR'd scan: a colour JPEG under invisible text has a text layer; Ghostscript wrote no Creator", async () => {
		expect(await scanFacts(await scan("ocr-text-layer.pdf"), "pdf")).toEqual({
			pages: [
				{
					paper: "A4",
					widthMm: 210,
					heightMm: 297,
					xDpi: 75,
					yDpi: 75,
					colour: "colour",
					compression: "JPEG",
					bytes: 7893,
					text: true,
				},
			],
			producer: "GPL Ghostscript 10.00.0",
			creator: null,
		});
	});

	test("a page drawn through a Form XObject, turned and halved: the largest image by pixels, its dpi as drawn", async () => {
		const pdf = await PDFDocument.create();
		const [letter] = await pdf.embedPdf(await scan("scan-2-pages.pdf"), [1]);
		if (letter === undefined) throw new Error("no page embedded");
		// A 50 × 50 logo drawn over the whole page: more points, fewer pixels.
		const logo = await pdf.embedJpg(
			await sharp({ create: { width: 50, height: 50, channels: 3, background: "#c04020" } })
				.jpeg()
				.toBuffer(),
		);
		const page = pdf.addPage([792, 612]);
		page.drawImage(logo, { x: 0, y: 0, width: 792, height: 612 });
		// 612 × 792 points at half size, a quarter turn: 306 wide, 396 tall in the page's terms.
		page.drawPage(letter, { x: 500, y: 100, xScale: 0.5, yScale: 0.5, rotate: degrees(90) });
		const facts = await scanFacts(await pdf.save(), "pdf");
		expect(facts.pages).toEqual([
			{
				paper: "US Letter landscape",
				widthMm: 279,
				heightMm: 216,
				xDpi: 400,
				yDpi: 400,
				colour: "black and white",
				compression: "CCITT G4",
				bytes: 873,
				text: false,
			},
		]);
		expect(facts.producer).toBe("pdf-lib (https://github.com/Hopding/pdf-lib)");
	});

	test("pages without an image: size and text layer only", async () => {
		const facts = await scanFacts(await textPdf([A4_POINTS, [500, 500]]), "pdf");
		expect(facts.pages).toEqual([
			{ paper: "A4", widthMm: 210, heightMm: 297, ...NO_IMAGE, text: true },
			{ paper: null, widthMm: 176, heightMm: 176, ...NO_IMAGE, text: true },
		]);
		const blank = await PDFDocument.create();
		blank.addPage([612, 1008]);
		blank.setProducer("  Scan\u0007Station\u200b 9\n ");
		blank.setCreator("");
		expect(await scanFacts(await blank.save(), "pdf")).toEqual({
			pages: [{ paper: "US Legal", widthMm: 216, heightMm: 356, ...NO_IMAGE, text: false }],
			producer: "ScanStation 9",
			creator: null,
		});
	});

	test("a PDF that cannot be opened has no pages to tell of, and does not throw", async () => {
		const empty = { pages: [], producer: null, creator: null };
		expect(await scanFacts(latin1("%PDF-1.4\nnot a PDF at all\n%%EOF\n"), "pdf")).toEqual(empty);
		expect(await scanFacts(encryptedPdf("secret", "owner"), "pdf")).toEqual(empty);
	});

	test("a PDF cut short, which PDFium cannot rebuild, has no pages either", async () => {
		const whole = await scan("scan-2-pages.pdf");
		for (const length of [100, 20_000, 53_000, whole.length - 200]) {
			expect(await scanFacts(whole.subarray(0, length), "pdf")).toEqual({
				pages: [],
				producer: null,
				creator: null,
			});
		}
	});

	test.each([
		["/K 0 ", "CCITT G3 (MH)"],
		["/K 1 ", "CCITT G3 (MR)"],
		["/K -5", "CCITT G4"],
	])("CCITT page 2 with its DecodeParms' K rewritten as %p: %s", async (k, compression) => {
		const text = new TextDecoder("latin1").decode(await scan("scan-2-pages.pdf"));
		expect(text).toContain("/K -1\n");
		const rewritten = latin1(text.replace("/K -1\n", `${k}\n`));
		const facts = await scanFacts(rewritten, "pdf");
		expect(facts.pages[1]).toMatchObject({ compression, bytes: 873, xDpi: 200 });
	});
});

describe("scanFacts of a TIFF", () => {
	test("the T.37 email's TIFF-F: two MH pages at 204 × 98 dpi, conforming", async () => {
		expect(await scanFacts(await t37Attachment(), "tiff")).toEqual({
			pages: [
				{ ...FAX_PAGE, compression: "CCITT G3 (MH)", bytes: 1780 },
				{ ...FAX_PAGE, compression: "CCITT G3 (MH)", bytes: 1830 },
			],
			producer: null,
			creator: null,
			tiffF: null,
		});
	});

	test("a TIFF-F page and an A4 page at 300 dpi: page 2 is too wide", async () => {
		const facts = await scanFacts(await scan("t37-wide-page2.tif"), "tiff");
		expect(facts.pages[1]).toEqual({
			paper: "A4",
			widthMm: 210,
			heightMm: 297,
			xDpi: 300,
			yDpi: 300,
			colour: "black and white",
			compression: "CCITT G3 (MH)",
			bytes: 14_861,
			text: false,
		});
		expect(facts.pages.map((page) => page.bytes)).toEqual(await tiffinfoStripBytes("t37-wide-page2.tif"));
		expect(facts.tiffF).toBe("page 2 is 2480 pixels wide; TIFF-F pages are 1728");
	});

	test("a scanner's greyscale LZW TIFF", async () => {
		expect(await scanFacts(await scan("grey-lzw.tif"), "tiff")).toEqual({
			pages: [
				{
					paper: "US Letter",
					widthMm: 216,
					heightMm: 279,
					xDpi: 100,
					yDpi: 100,
					colour: "greyscale",
					compression: "LZW",
					bytes: 4709,
					text: false,
				},
			],
			producer: null,
			creator: null,
			tiffF: "page 1 is greyscale (8 bits a sample); TIFF-F pages are black and white, 1 bit",
		});
	});

	test("faxes as HylaFAX stores them are not TIFF-F: 2-D MR, and MMR (G4)", async () => {
		const mr = await scanFacts(await Bun.file(`${INGEST}/fax-g3-2d.tif`).bytes(), "tiff");
		expect(mr.pages.map((page) => [page.compression, page.bytes])).toEqual([
			["CCITT G3 (MR)", 1361],
			["CCITT G3 (MR)", 1401],
		]);
		expect(mr.tiffF).toBe("page 1 is coded CCITT G3 (MR, 2-D); TIFF-F's minimal profile takes only MH (1-D)");
		const mmr = await scanFacts(await Bun.file(`${INGEST}/hylafax-mmr-ecm-1.tif`).bytes(), "tiff");
		expect(mmr.pages).toEqual([
			{ ...FAX_PAGE, compression: "CCITT G4", bytes: 78 },
			{ ...FAX_PAGE, compression: "CCITT G4", bytes: 79 },
		]);
		expect(mmr.tiffF).toBe("page 1 is coded CCITT G4; TIFF-F pages are CCITT G3 (MH)");
		const g4 = await scanFacts(await scan("page2-letter-200dpi-g4.tif"), "tiff");
		expect(g4.pages[0]).toMatchObject({ paper: "US Letter", xDpi: 200, compression: "CCITT G4", bytes: 873 });
	});

	test.each([
		[
			TIFF_TAG.photometric,
			1,
			"page 1 stores black as 0 (BlackIsZero); TIFF-F pages store white as 0 (WhiteIsZero)",
		],
		[TIFF_TAG.resolutionUnit, 3, "page 1 gives its resolution per centimetre; TIFF-F's is per inch"],
		[TIFF_TAG.resolutionUnit, 1, "page 1 gives its resolution without a unit; TIFF-F's is per inch"],
		[TIFF_TAG.fillOrder, 3, "page 1 has FillOrder 3; TIFF-F allows 1 or 2"],
		[TIFF_TAG.t4Options, 2, "page 1 uses G3's uncompressed mode, which TIFF-F does not allow"],
		[TIFF_TAG.imageWidth, 2432, "page 1 is 2432 pixels wide; TIFF-F pages are 1728"],
		[TIFF_TAG.compression, 4, "page 1 is coded CCITT G4; TIFF-F pages are CCITT G3 (MH)"],
	])("TIFF-F with tag %d set to %d: %s", async (tag, value, failure) => {
		expect((await scanFacts(withTiffTag(await t37Attachment(), tag, value), "tiff")).tiffF).toBe(failure);
	});

	test("hand-made pages: the resolution rules, and a page without a photometric tag", async () => {
		const page = (x: number, y: number, photometric?: number): TiffEntry[] => [
			{ tag: TIFF_TAG.imageWidth, type: 3, values: [1728] },
			{ tag: TIFF_TAG.imageLength, type: 3, values: [1100] },
			{ tag: TIFF_TAG.compression, type: 3, values: [3] },
			...(photometric === undefined
				? []
				: [{ tag: TIFF_TAG.photometric, type: 3 as const, values: [photometric] }]),
			{ tag: TIFF_TAG.stripOffsets, type: 4, values: [8] },
			{ tag: TIFF_TAG.stripByteCounts, type: 4, values: [16] },
			// LONGs rather than RATIONALs: the reader takes them as written.
			{ tag: TIFF_TAG.xResolution, type: 4, values: [x] },
			{ tag: TIFF_TAG.yResolution, type: 4, values: [y] },
		];
		const wrongX = await scanFacts(handMadeTiff([page(204, 196, 0), page(300, 98, 0)]), "tiff");
		expect(wrongX.pages[1]).toMatchObject({ xDpi: 300, yDpi: 98, compression: "CCITT G3 (MH)", bytes: 16 });
		expect(wrongX.tiffF).toBe("page 2 is 300 dpi across; TIFF-F pages are 204 (or 200)");
		const wrongY = await scanFacts(handMadeTiff([page(200, 150, 0)]), "tiff");
		expect(wrongY.tiffF).toBe("page 1 is 150 dpi down; TIFF-F pages are 98 or 196 (or 100 or 200)");
		const fine = await scanFacts(handMadeTiff([page(200, 200, 0), page(204, 196, 0)]), "tiff");
		expect(fine.tiffF).toBeNull();
		const noPhotometric = await scanFacts(handMadeTiff([page(204, 196)]), "tiff");
		expect(noPhotometric.tiffF).toBe(
			"page 1 does not store white as 0; TIFF-F pages store white as 0 (WhiteIsZero)",
		);
	});

	test("a TIFF whose directories cannot be read: no pages, and the reason as its TIFF-F failure", async () => {
		const loop = handMadeTiff([[{ tag: TIFF_TAG.imageWidth, type: 3, values: [1728] }]], () => 0);
		expect(await scanFacts(loop, "tiff")).toEqual({
			pages: [],
			producer: null,
			creator: null,
			tiffF: "the TIFF's pages cannot be read",
		});
		const cut = (await t37Attachment()).subarray(0, 1900);
		expect((await scanFacts(cut, "tiff")).tiffF).toBe("the TIFF's pages cannot be read");
	});

	test("strip counts that point past the file give no byte count, and a page without a size no image", async () => {
		const facts = await scanFacts(
			handMadeTiff([
				[
					{ tag: TIFF_TAG.imageWidth, type: 3, values: [1728] },
					{ tag: TIFF_TAG.imageLength, type: 3, values: [1100] },
					{ tag: TIFF_TAG.stripByteCounts, type: 4, values: [1_000_000, 0, 0] },
				],
				[{ tag: TIFF_TAG.imageWidth, type: 3, values: [1728] }],
			]),
			"tiff",
		);
		expect(
			facts.pages.map((page): Partial<ScanPage> => ({ bytes: page.bytes, colour: page.colour })),
		).toEqual([
			{ bytes: null, colour: "black and white" },
			{ bytes: null, colour: null },
		]);
	});
});

describe("scanFacts of bytes that are not the format named", () => {
	test("throws", async () => {
		const pdf = await scan("scan-2-pages.pdf");
		const tiff = await t37Attachment();
		await expect(scanFacts(latin1("hello"), "pdf")).rejects.toThrow("scanFacts: the bytes are not a PDF");
		await expect(scanFacts(pdf, "tiff")).rejects.toThrow("scanFacts: the bytes are not a TIFF");
		await expect(scanFacts(tiff, "pdf")).rejects.toThrow("scanFacts: the bytes are not a PDF");
	});
});

describe("paperName", () => {
	test.each([
		[210, 297, "A4"],
		[297, 210, "A4 landscape"],
		[209.97, 297.01, "A4"],
		[215.9, 279.4, "US Letter"],
		[216, 356, "US Legal"],
		[148, 210, "A5"],
		[297, 420, "A3"],
		[176, 250, "B5"],
		[182, 257, "JIS B5"],
		[212.5, 297, null],
		[215, 104, null],
		[200, 200, null],
	])("%d × %d mm: %p", (width, height, name) => {
		expect(paperName(width, height)).toBe(name);
	});
});

describe("cleanText", () => {
	test("drops control and format characters, trims, keeps 120 characters", () => {
		expect(cleanText(" \u0000HP\tColor  LaserJet\u200e MFP\r\n")).toBe("HP Color LaserJet MFP");
		expect(cleanText("\u0001\u0002 ")).toBeNull();
		expect(cleanText(undefined)).toBeNull();
		expect(cleanText("é".repeat(200))).toBe("é".repeat(120));
	});
});
