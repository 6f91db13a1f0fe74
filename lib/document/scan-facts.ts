// What a scanner made, page by page, as a person setting up a scan-to-email
// device or an Internet fax reads it: paper, resolution, colour mode,
// compression and bytes of each page, a PDF's text layer and the software
// that wrote it, and a TIFF's conformance to TIFF-F (RFC 3949).
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream } from "pdf-lib";
import { detectFormat } from "./detect-format.ts";
import { MAX_PAGES } from "./limits.ts";
import { paperName } from "./paper-sizes.ts";
import { type PdfDocument, pdfium, withPdf } from "./pdfium.ts";
import { pageDirectories, readTiffDirectories, TIFF_TAG, type TiffDirectory } from "./tiff-directories.ts";
import { tiffPageGeometry } from "./tiff-page-geometry.ts";

export interface ScanPage {
	/** "A4", "US Letter", "A4 landscape" … within ±2 mm of a standard size; null otherwise. */
	paper: string | null;
	/** The page's size in whole mm, width × height (0 when the page's size cannot be read). */
	widthMm: number;
	heightMm: number;
	/** The scanned image's resolution across and down (dpi, rounded); null without an image. */
	xDpi: number | null;
	yDpi: number | null;
	/** "black and white" (1 bit), "greyscale", "colour"; null without an image. */
	colour: string | null;
	/**
	 * "JPEG", "CCITT G4", "CCITT G3 (MH)", "CCITT G3 (MR)" ("CCITT" when its K cannot be read), "JBIG2",
	 * "JPEG 2000", "Flate", "LZW", "uncompressed" …; null without an image.
	 */
	compression: string | null;
	/** Bytes of the page's image data as stored; null without an image. */
	bytes: number | null;
	/** The page holds text (a text layer, e.g. OCR); false for a TIFF. */
	text: boolean;
}

export interface ScanFacts {
	pages: ScanPage[];
	/** The PDF's Producer and Creator, cleaned; null when absent, and for a TIFF. */
	producer: string | null;
	creator: string | null;
	/** A TIFF's first failing TIFF-F rule in plain words, null when it conforms; absent for a PDF. */
	tiffF?: string | null;
}

/**
 * The facts of a scan. A damaged or unusual file gives what can be read and
 * nulls for the rest; only bytes that are not the named format throw.
 */
export async function scanFacts(bytes: Uint8Array, format: "pdf" | "tiff"): Promise<ScanFacts> {
	const found = detectFormat(bytes);
	if (found !== format) {
		throw new Error(`scanFacts: the bytes are not a ${format === "pdf" ? "PDF" : "TIFF"}`);
	}
	return format === "pdf" ? await pdfScanFacts(bytes) : tiffScanFacts(bytes);
}

const MM_PER_POINT = 25.4 / 72;

function pageOfSize(widthPoints: number, heightPoints: number): ScanPage {
	const [width, height] = [widthPoints * MM_PER_POINT, heightPoints * MM_PER_POINT];
	const valid = Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0;
	return {
		paper: valid ? paperName(width, height) : null,
		widthMm: valid ? Math.round(width) : 0,
		heightMm: valid ? Math.round(height) : 0,
		xDpi: null,
		yDpi: null,
		colour: null,
		compression: null,
		bytes: null,
		text: false,
	};
}

// ---- PDF ------------------------------------------------------------------

// The calls of PDFium's C API read here that pdfium.ts does not declare.
type ScanPdfium = Awaited<ReturnType<typeof pdfium>> & {
	_FPDFImageObj_GetImageMetadata(object: number, page: number, metadata: number): number;
	_FPDFPageObj_GetMatrix(object: number, matrix: number): number;
	_FPDF_GetMetaText(document: number, tag: number, buffer: number, length: number): number;
	_FPDFFormObj_CountObjects(object: number): number;
	_FPDFFormObj_GetObject(object: number, index: number): number;
};

// PdfDocument keeps its handle to itself; these facts need calls of PDFium
// it does not wrap, made on the same open document.
type OpenPdf = { api: ScanPdfium; handle: number; document: PdfDocument; scratch: number };

/** a b c d e f of a PDF matrix: a point (x, y) goes to (a x + c y + e, b x + d y + f). */
type Matrix = readonly [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

type MainImage = { object: number; width: number; height: number; matrix: Matrix };

const FPDF_PAGEOBJ_IMAGE = 3;
const FPDF_PAGEOBJ_FORM = 5;
// PDFium itself stops nesting forms well before this.
const MAX_FORM_DEPTH = 32;
// FS_MATRIX (six floats) and FPDF_IMAGEOBJ_METADATA (seven 4-byte fields) both fit.
const SCRATCH_BYTES = 32;
const METADATA_CHARS = 120;
const POINTS_PER_INCH = 72;

async function pdfScanFacts(bytes: Uint8Array): Promise<ScanFacts> {
	const api = (await pdfium()) as ScanPdfium;
	const read = await withPdf(bytes, async (document) => {
		const scratch = api.wasmExports.malloc(SCRATCH_BYTES);
		if (scratch === 0) return undefined;
		try {
			const handle = (document as unknown as { handle: number }).handle;
			const pdf: OpenPdf = { api, handle, document, scratch };
			const count = Math.min(document.pageCount(), MAX_PAGES);
			const pages = Array.from({ length: count }, (_, index) => pdfPage(pdf, index));
			return {
				pages: pages.map((page) => page.facts),
				ccitt: pages.map((page) => page.ccitt),
				producer: metaText(pdf, "Producer"),
				creator: metaText(pdf, "Creator"),
			};
		} finally {
			api.wasmExports.free(scratch);
		}
	});
	// A PDF PDFium cannot open (damaged, encrypted, too large) has no pages to tell of.
	if (read === undefined || !("pages" in read)) return { pages: [], producer: null, creator: null };
	await nameCcittCodings(bytes, read.pages, read.ccitt);
	return { pages: read.pages, producer: read.producer, creator: read.creator };
}

type PdfPage = { facts: ScanPage; ccitt: CcittImage | undefined };

function pdfPage(pdf: OpenPdf, index: number): PdfPage {
	const size = pdf.document.pageSize(index);
	const facts = pageOfSize(size?.width ?? 0, size?.height ?? 0);
	const page = pdf.api._FPDF_LoadPage(pdf.handle, index);
	if (page === 0) return { facts, ccitt: undefined };
	try {
		facts.text = hasText(pdf.api, page);
		const image = mainImage(pdf, page);
		if (image === undefined) return { facts, ccitt: undefined };
		const stored = pdf.api._FPDFImageObj_GetImageDataRaw(image.object, 0, 0);
		const filters = imageFilters(pdf, image.object);
		Object.assign(facts, {
			...imageResolution(image),
			colour: colourMode(pdf, image.object, page),
			compression: compressionOfFilters(filters),
			bytes: stored > 0 ? stored : null,
		});
		const ccitt =
			facts.compression === "CCITT" ? { width: image.width, height: image.height, bytes: stored } : undefined;
		return { facts, ccitt };
	} finally {
		pdf.api._FPDF_ClosePage(page);
	}
}

function hasText(api: ScanPdfium, page: number): boolean {
	const text = api._FPDFText_LoadPage(page);
	if (text === 0) return false;
	try {
		return api._FPDFText_CountChars(text) > 0;
	} finally {
		api._FPDFText_ClosePage(text);
	}
}

/**
 * The page's largest image by pixels, inside Form XObjects too, with the
 * matrix that draws it on the page: a scan's page is one image, and any
 * other (a logo, a stamp, a thumbnail) is smaller.
 */
function mainImage(pdf: OpenPdf, page: number): MainImage | undefined {
	const { api, scratch } = pdf;
	let best: MainImage | undefined;
	const visit = (object: number, outer: Matrix, depth: number): void => {
		const type = api._FPDFPageObj_GetType(object);
		if (type !== FPDF_PAGEOBJ_IMAGE && type !== FPDF_PAGEOBJ_FORM) return;
		if (!api._FPDFPageObj_GetMatrix(object, scratch)) return;
		// A form's objects are placed in the form's space, which its own matrix puts on the page.
		const matrix = multiply(readFloats(api, scratch, 6) as unknown as Matrix, outer);
		if (type === FPDF_PAGEOBJ_FORM) {
			if (depth === MAX_FORM_DEPTH) return;
			const children = api._FPDFFormObj_CountObjects(object);
			for (let i = 0; i < children; i++) visit(api._FPDFFormObj_GetObject(object, i), matrix, depth + 1);
			return;
		}
		if (!api._FPDFImageObj_GetImagePixelSize(object, scratch, scratch + 4)) return;
		const [width, height] = readUint32s(api, scratch, 2) as [number, number];
		if (best === undefined || width * height > best.width * best.height) {
			best = { object, width, height, matrix };
		}
	};
	const objects = api._FPDFPage_CountObjects(page);
	for (let i = 0; i < objects; i++) visit(api._FPDFPage_GetObject(page, i), IDENTITY, 0);
	return best;
}

function multiply(m: Matrix, n: Matrix): Matrix {
	return [
		m[0] * n[0] + m[1] * n[2],
		m[0] * n[1] + m[1] * n[3],
		m[2] * n[0] + m[3] * n[2],
		m[2] * n[1] + m[3] * n[3],
		m[4] * n[0] + m[5] * n[2] + n[4],
		m[4] * n[1] + m[5] * n[3] + n[5],
	];
}

/**
 * Pixels over the length the image is drawn at, each axis on its own. The
 * image space's unit square is the whole image, so the matrix's columns are
 * the drawn width and height, whichever way it is turned; for a scan they
 * are the page's size.
 */
function imageResolution(image: MainImage): Pick<ScanPage, "xDpi" | "yDpi"> {
	const [a, b, c, d] = image.matrix;
	const dpi = (pixels: number, points: number) =>
		points > 0 && Number.isFinite(points) ? Math.round((pixels * POINTS_PER_INCH) / points) : null;
	return { xDpi: dpi(image.width, Math.hypot(a, b)), yDpi: dpi(image.height, Math.hypot(c, d)) };
}

// FPDF_COLORSPACE_* of fpdf_edit.h.
const COLORSPACE = { deviceGray: 1, calGray: 4, iccBased: 7, separation: 8, indexed: 10 } as const;
const GREY_SPACES: ReadonlySet<number> = new Set([
	COLORSPACE.deviceGray,
	COLORSPACE.calGray,
	COLORSPACE.separation,
]);

/**
 * From the bits per pixel PDFium decodes the image to and its colour space:
 * an ICC-based space says nothing of its channels, so 8 bits (one channel)
 * is grey; an indexed one is a palette, colour even at 8 bits.
 */
function colourMode(pdf: OpenPdf, object: number, page: number): string | null {
	const { api, scratch } = pdf;
	if (!api._FPDFImageObj_GetImageMetadata(object, page, scratch)) return null;
	const bitsPerPixel = readUint32s(api, scratch + 16, 1)[0] ?? 0;
	const colorspace = readUint32s(api, scratch + 20, 1)[0] ?? 0;
	if (bitsPerPixel === 0) return null;
	if (bitsPerPixel === 1) return "black and white";
	if (bitsPerPixel === 8 && (GREY_SPACES.has(colorspace) || colorspace === COLORSPACE.iccBased)) {
		return "greyscale";
	}
	return "colour";
}

// Full names and the abbreviations of inline images.
const FILTER_NAMES: Record<string, string> = {
	DCTDecode: "JPEG",
	DCT: "JPEG",
	JPXDecode: "JPEG 2000",
	JBIG2Decode: "JBIG2",
	FlateDecode: "Flate",
	Fl: "Flate",
	LZWDecode: "LZW",
	LZW: "LZW",
	RunLengthDecode: "run-length",
	RL: "run-length",
};
const CCITT_FILTERS: ReadonlySet<string> = new Set(["CCITTFaxDecode", "CCF"]);
// Text encodings wrapped around the compression, which say nothing of it.
const ASCII_FILTERS: ReadonlySet<string> = new Set(["ASCIIHexDecode", "AHx", "ASCII85Decode", "A85"]);

function imageFilters(pdf: OpenPdf, object: number): string[] {
	const { api } = pdf;
	const count = api._FPDFImageObj_GetImageFilterCount(object);
	const filters: string[] = [];
	for (let i = 0; i < count; i++) {
		const length = api._FPDFImageObj_GetImageFilter(object, i, 0, 0);
		if (length <= 1) continue;
		filters.push(
			withBuffer(api, length, (buffer) => {
				api._FPDFImageObj_GetImageFilter(object, i, buffer, length);
				return new TextDecoder("latin1").decode(api.HEAPU8.subarray(buffer, buffer + length - 1));
			}) ?? "",
		);
	}
	return filters;
}

/** The last filter that compresses: the image's coding. CCITT is named once its K is known. */
function compressionOfFilters(filters: string[]): string {
	const coding = filters.filter((filter) => !ASCII_FILTERS.has(filter)).at(-1);
	if (coding === undefined) return "uncompressed";
	if (CCITT_FILTERS.has(coding)) return "CCITT";
	return FILTER_NAMES[coding] ?? coding;
}

/** The Info dictionary's entry, cleaned for a page: no control characters, at most 120 characters. */
function metaText(pdf: OpenPdf, tag: string): string | null {
	const { api, handle } = pdf;
	const name = new TextEncoder().encode(`${tag}\0`);
	const raw = withBuffer(api, name.length, (tagPointer) => {
		api.HEAPU8.set(name, tagPointer);
		const length = api._FPDF_GetMetaText(handle, tagPointer, 0, 0);
		// The length counts the UTF-16 terminator: 2 is an empty or absent entry.
		if (length <= 2) return undefined;
		return withBuffer(api, length, (buffer) => {
			api._FPDF_GetMetaText(handle, tagPointer, buffer, length);
			return new TextDecoder("utf-16le").decode(api.HEAPU8.subarray(buffer, buffer + length - 2));
		});
	});
	return cleanText(raw);
}

/** Whitespace runs made one space, control and format characters dropped, at most 120 characters. */
export function cleanText(raw: string | undefined): string | null {
	const text = raw
		?.replace(/\s+/g, " ")
		.replace(/[\p{Cc}\p{Cf}]/gu, "")
		.trim();
	return text ? Array.from(text).slice(0, METADATA_CHARS).join("").trim() : null;
}

function withBuffer<T>(api: ScanPdfium, bytes: number, use: (pointer: number) => T): T | undefined {
	const pointer = api.wasmExports.malloc(bytes);
	if (pointer === 0) return undefined;
	try {
		return use(pointer);
	} finally {
		api.wasmExports.free(pointer);
	}
}

// The heap's buffer is replaced whenever the module's memory grows, so each read takes a fresh view.
function readFloats(api: ScanPdfium, at: number, count: number): number[] {
	const view = new DataView(api.HEAPU8.buffer);
	return Array.from({ length: count }, (_, i) => view.getFloat32(at + i * 4, true));
}

function readUint32s(api: ScanPdfium, at: number, count: number): number[] {
	const view = new DataView(api.HEAPU8.buffer);
	return Array.from({ length: count }, (_, i) => view.getUint32(at + i * 4, true));
}

// ---- CCITT coding, from the image's dictionary ----------------------------

/** A CCITT image as PDFium found it, to find again among the page's XObjects. */
type CcittImage = { width: number; height: number; bytes: number };

/**
 * PDFium does not give an image's DecodeParms, where K tells G4 from G3 and
 * G3's 1-D (MH) from 2-D (MR) coding: pdf-lib reads them, only for the PDFs
 * that have a CCITT page. A page whose image cannot be matched keeps "CCITT".
 */
async function nameCcittCodings(bytes: Uint8Array, pages: ScanPage[], ccitt: (CcittImage | undefined)[]) {
	if (ccitt.every((image) => image === undefined)) return;
	let document: PDFDocument;
	try {
		document = await PDFDocument.load(bytes, {
			ignoreEncryption: true,
			updateMetadata: false,
			throwOnInvalidObject: false,
		});
	} catch {
		return;
	}
	ccitt.forEach((image, index) => {
		const page = pages[index];
		if (image === undefined || page === undefined) return;
		try {
			const k = ccittK(document.getPage(index).node.Resources(), image, new Set(), 0);
			if (k === undefined) return;
			page.compression = k < 0 ? "CCITT G4" : k === 0 ? "CCITT G3 (MH)" : "CCITT G3 (MR)";
		} catch {
			// A page tree pdf-lib reads differently from PDFium's: the coding stays unnamed.
		}
	});
}

const NAME = {
	xObject: PDFName.of("XObject"),
	resources: PDFName.of("Resources"),
	subtype: PDFName.of("Subtype"),
	image: PDFName.of("Image"),
	form: PDFName.of("Form"),
	width: PDFName.of("Width"),
	height: PDFName.of("Height"),
	filter: PDFName.of("Filter"),
	decodeParms: PDFName.of("DecodeParms"),
	k: PDFName.of("K"),
} as const;

/** K of the image XObject in `resources` (or a form's, below) that has the image's size and stored bytes. */
function ccittK(
	resources: PDFDict | undefined,
	image: CcittImage,
	seen: Set<PDFDict>,
	depth: number,
): number | undefined {
	const xObjects = resources?.lookup(NAME.xObject);
	if (!(xObjects instanceof PDFDict) || depth > MAX_FORM_DEPTH) return undefined;
	for (const value of xObjects.values()) {
		const stream = xObjects.context.lookup(value);
		if (!(stream instanceof PDFRawStream) || seen.has(stream.dict)) continue;
		seen.add(stream.dict);
		const { dict } = stream;
		const subtype = dict.lookup(NAME.subtype);
		if (subtype === NAME.form) {
			const resources = dict.lookup(NAME.resources);
			const k = ccittK(resources instanceof PDFDict ? resources : undefined, image, seen, depth + 1);
			if (k !== undefined) return k;
		} else if (
			subtype === NAME.image &&
			numberIn(dict, NAME.width) === image.width &&
			numberIn(dict, NAME.height) === image.height &&
			stream.contents.length === image.bytes
		) {
			const k = decodeK(dict);
			if (k !== undefined) return k;
		}
	}
	return undefined;
}

/** The K of the CCITTFaxDecode filter's parameters: 0 when absent, as the PDF specification defaults it. */
function decodeK(dict: PDFDict): number | undefined {
	const filter = dict.lookup(NAME.filter);
	const filters =
		filter instanceof PDFArray ? filter.asArray().map((item) => dict.context.lookup(item)) : [filter];
	const at = filters.findIndex((item) => item instanceof PDFName && CCITT_FILTERS.has(item.decodeText()));
	if (at < 0) return undefined;
	const parms = dict.lookup(NAME.decodeParms);
	const own = parms instanceof PDFArray ? dict.context.lookup(parms.get(at)) : parms;
	return own instanceof PDFDict ? (numberIn(own, NAME.k) ?? 0) : 0;
}

function numberIn(dict: PDFDict, key: PDFName): number | undefined {
	const value = dict.lookup(key);
	return value instanceof PDFNumber ? value.asNumber() : undefined;
}

// ---- TIFF -----------------------------------------------------------------

/** What one TIFF page's tags say, with TIFF's defaults where a tag is absent. */
type TiffPageTags = {
	width: number | undefined;
	bitsPerSample: number;
	samplesPerPixel: number;
	photometric: number | undefined;
	compression: number;
	t4Options: number;
	fillOrder: number;
	resolutionUnit: number;
	xResolution: number | undefined;
	yResolution: number | undefined;
	bytes: number | null;
};

function tiffPageTags(directory: TiffDirectory): TiffPageTags {
	const first = (tag: number) => directory.first(tag);
	return {
		width: first(TIFF_TAG.imageWidth),
		bitsPerSample: first(TIFF_TAG.bitsPerSample) ?? 1,
		samplesPerPixel: first(TIFF_TAG.samplesPerPixel) ?? 1,
		photometric: first(TIFF_TAG.photometric),
		compression: first(TIFF_TAG.compression) ?? 1,
		t4Options: first(TIFF_TAG.t4Options) ?? 0,
		fillOrder: first(TIFF_TAG.fillOrder) ?? 1,
		resolutionUnit: first(TIFF_TAG.resolutionUnit) ?? RESOLUTION_UNIT.inch,
		xResolution: first(TIFF_TAG.xResolution),
		yResolution: first(TIFF_TAG.yResolution),
		bytes: storedBytes(directory),
	};
}

const RESOLUTION_UNIT = { none: 1, inch: 2, centimetre: 3 } as const;
const TILE_BYTE_COUNTS = 325;
const PHOTOMETRIC_PALETTE = 3;

/** The strips' (or tiles') bytes; null when the counts are absent or point past the file. */
function storedBytes(directory: TiffDirectory): number | null {
	for (const tag of [TIFF_TAG.stripByteCounts, TILE_BYTE_COUNTS]) {
		const count = directory.count(tag);
		if (count === undefined) continue;
		// values() refuses counts that run past the file, so this is bounded by its size.
		const counts = directory.values(tag, count);
		return counts === undefined ? null : counts.reduce((sum, bytes) => sum + bytes, 0);
	}
	return null;
}

function tiffScanFacts(bytes: Uint8Array): ScanFacts {
	const directories = readTiffDirectories(bytes, MAX_PAGES);
	if (typeof directories === "string") {
		const tiffF =
			directories === "too-many"
				? `the TIFF has more than ${MAX_PAGES} pages`
				: "the TIFF's pages cannot be read";
		return { pages: [], producer: null, creator: null, tiffF };
	}
	const pages = pageDirectories(directories);
	const tags = pages.map(tiffPageTags);
	return {
		pages: pages.map((directory, index) => tiffPage(directory, tags[index] as TiffPageTags)),
		producer: null,
		creator: null,
		tiffF: tiffFFailure(tags),
	};
}

function tiffPage(directory: TiffDirectory, tags: TiffPageTags): ScanPage {
	const geometry = tiffPageGeometry(directory);
	const facts = pageOfSize(geometry?.widthPoints ?? 0, geometry?.heightPoints ?? 0);
	if (geometry === undefined) return facts;
	const perInch = tags.resolutionUnit === RESOLUTION_UNIT.centimetre ? 2.54 : 1;
	const dpi = (resolution: number | undefined) =>
		resolution !== undefined &&
		resolution > 0 &&
		Number.isFinite(resolution) &&
		tags.resolutionUnit !== RESOLUTION_UNIT.none
			? Math.round(resolution * perInch)
			: null;
	return {
		...facts,
		xDpi: dpi(tags.xResolution),
		yDpi: dpi(tags.yResolution),
		colour: tiffColour(tags),
		compression: tiffCompression(tags),
		bytes: tags.bytes,
	};
}

function tiffColour(tags: TiffPageTags): string {
	if (tags.samplesPerPixel > 1 || tags.photometric === PHOTOMETRIC_PALETTE) return "colour";
	return tags.bitsPerSample === 1 ? "black and white" : "greyscale";
}

// The Compression tag's values (TIFF 6.0 and its registered extensions).
const TIFF_COMPRESSIONS: Record<number, string> = {
	1: "uncompressed",
	2: "CCITT MH (RLE)",
	4: "CCITT G4",
	5: "LZW",
	6: "JPEG",
	7: "JPEG",
	8: "Flate",
	9: "JBIG",
	10: "JBIG",
	32773: "PackBits",
	32946: "Flate",
	34661: "JBIG",
	34712: "JPEG 2000",
};

function tiffCompression(tags: TiffPageTags): string {
	// Group3Options bit 0: 2-D coding.
	if (tags.compression === 3) return tags.t4Options & 1 ? "CCITT G3 (MR)" : "CCITT G3 (MH)";
	return TIFF_COMPRESSIONS[tags.compression] ?? `TIFF compression ${tags.compression}`;
}

// ---- TIFF-F ---------------------------------------------------------------

/**
 * RFC 3949's profile S, the minimal black-and-white profile T.37's simple
 * mode sends, one rule a function: the failure in a tester's words, or
 * undefined. In the order a tester fixes them: what the image is, then its
 * coding, then its size and resolution.
 */
const TIFF_F_RULES: readonly ((page: TiffPageTags) => string | undefined)[] = [
	(page) =>
		page.bitsPerSample === 1
			? undefined
			: `is ${page.samplesPerPixel > 1 ? "colour" : "greyscale"} (${page.bitsPerSample} bits a sample); TIFF-F pages are black and white, 1 bit`,
	(page) =>
		page.samplesPerPixel === 1
			? undefined
			: `has ${page.samplesPerPixel} samples a pixel; TIFF-F pages have 1`,
	(page) =>
		page.compression === 3 ? undefined : `is coded ${tiffCompression(page)}; TIFF-F pages are CCITT G3 (MH)`,
	(page) =>
		page.t4Options & 1
			? "is coded CCITT G3 (MR, 2-D); TIFF-F's minimal profile takes only MH (1-D)"
			: undefined,
	(page) => (page.t4Options & 2 ? "uses G3's uncompressed mode, which TIFF-F does not allow" : undefined),
	(page) =>
		page.width === 1728
			? undefined
			: `${page.width === undefined ? "has no width" : `is ${page.width} pixels wide`}; TIFF-F pages are 1728`,
	(page) =>
		page.resolutionUnit === RESOLUTION_UNIT.inch
			? undefined
			: `gives its resolution ${page.resolutionUnit === RESOLUTION_UNIT.centimetre ? "per centimetre" : "without a unit"}; TIFF-F's is per inch`,
	(page) =>
		oneOf(page.xResolution, [204, 200])
			? undefined
			: `is ${dpiText(page.xResolution)} across; TIFF-F pages are 204 (or 200)`,
	(page) =>
		oneOf(page.yResolution, [98, 196, 100, 200])
			? undefined
			: `is ${dpiText(page.yResolution)} down; TIFF-F pages are 98 or 196 (or 100 or 200)`,
	(page) =>
		page.photometric === 0
			? undefined
			: `${page.photometric === 1 ? "stores black as 0 (BlackIsZero)" : "does not store white as 0"}; TIFF-F pages store white as 0 (WhiteIsZero)`,
	(page) =>
		page.fillOrder === 1 || page.fillOrder === 2
			? undefined
			: `has FillOrder ${page.fillOrder}; TIFF-F allows 1 or 2`,
];

/** The first page's first failing rule, as "page N …"; null when every page conforms. */
function tiffFFailure(pages: TiffPageTags[]): string | null {
	if (pages.length === 0) return "the TIFF has no pages";
	for (const [index, page] of pages.entries()) {
		for (const rule of TIFF_F_RULES) {
			const failure = rule(page);
			if (failure !== undefined) return `page ${index + 1} ${failure}`;
		}
	}
	return null;
}

// Fax resolutions are written exactly (204/1, 98/1), but a rational may come
// out as 203.99 after a tool's rounding.
function oneOf(resolution: number | undefined, allowed: number[]): boolean {
	return resolution !== undefined && allowed.some((value) => Math.abs(resolution - value) < 0.5);
}

function dpiText(resolution: number | undefined): string {
	return resolution === undefined || !Number.isFinite(resolution)
		? "of no stated resolution"
		: `${Math.round(resolution)} dpi`;
}
