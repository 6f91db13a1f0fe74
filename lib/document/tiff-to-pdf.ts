import { ImagePdfWriter, type PdfImage } from "./image-pdf-writer.ts";
import {
	MAX_PAGE_PIXELS,
	MAX_PAGE_SIDE_PIXELS,
	MAX_PAGE_SIDE_POINTS,
	MAX_PAGES,
	MAX_STRIPS_COPIED_PER_PAGE,
	MAX_TOTAL_PIXELS,
	MIN_PAGE_SIDE_POINTS,
} from "./limits.ts";
import { type NotProcessable, notProcessable } from "./result.ts";
import { type CcittCoding, ccittCoding } from "./tiff-ccitt.ts";
import { pageDirectories, readTiffDirectories, type TiffDirectory } from "./tiff-directories.ts";
import { encodeFrame } from "./tiff-frame-image.ts";
import { type TiffPageGeometry, tiffPageGeometry } from "./tiff-page-geometry.ts";
import { type TiffStrip, tiffStrips } from "./tiff-strips.ts";

/** `tiff` is the file as its pages: the input, or a copy that ends after its last page. */
export type TiffPdf = {
	ok: true;
	pdf: Uint8Array;
	pageCount: number;
	firstPage: TiffPageGeometry;
	tiff: Uint8Array;
};

/** A page and, when its CCITT strips go into the PDF as they are, their coding and places. */
type TiffPage = { geometry: TiffPageGeometry; copied?: { coding: CcittCoding; strips: TiffStrip[] } };

/**
 * A PDF with one page per TIFF frame, sized from the frame's resolution.
 * Every frame is checked from the TIFF structure before anything is
 * written. CCITT frames (every fax) are copied strip by strip, undecoded;
 * only frames in other compressions are decoded, one at a time.
 */
export async function convertTiffToPdf(input: Uint8Array): Promise<TiffPdf | NotProcessable> {
	const read = readTiffDirectories(input, MAX_PAGES);
	if (read === "corrupt") {
		return notProcessable("truncated or corrupt TIFF");
	}
	if (read === "too-many") {
		return notProcessable(`TIFF has more than ${MAX_PAGES} pages`);
	}
	if (read.length === 0) return notProcessable("TIFF has no pages");
	const tiff = withoutEmptyLastPages(input, read);
	const pages = checkPages(tiff.bytes, read.slice(0, tiff.pages));
	if (!Array.isArray(pages)) return pages;
	const writer = new ImagePdfWriter();
	for (const [index, { geometry, copied }] of pages.entries()) {
		let images: PdfImage[];
		if (copied) {
			images = stripImages(tiff.bytes, geometry.width, copied.coding, copied.strips);
		} else {
			try {
				images = [{ ...(await encodeFrame(tiff.bytes, index, geometry)), top: 0, rows: geometry.height }];
			} catch {
				return notProcessable(`TIFF page ${index + 1} is truncated or corrupt`);
			}
		}
		writer.addPage(geometry, images);
	}
	const [first] = pages;
	if (first === undefined) return notProcessable("TIFF has no pages");
	return {
		ok: true,
		pdf: writer.finish(),
		pageCount: pages.length,
		firstPage: first.geometry,
		tiff: tiff.bytes,
	};
}

/** The file as its pages: when it has more directories, a copy whose last page links to no next one, so no decoder meets them. */
function withoutEmptyLastPages(tiff: Uint8Array, directories: TiffDirectory[]) {
	const pages = pageDirectories(directories).length;
	const last = directories[pages - 1];
	if (pages === directories.length || last === undefined) return { bytes: tiff, pages };
	const bytes = tiff.slice();
	new DataView(bytes.buffer).setUint32(last.nextOffsetAt, 0, bytes[0] === 0x49);
	return { bytes, pages };
}

function checkPages(tiff: Uint8Array, directories: TiffDirectory[]): TiffPage[] | NotProcessable {
	const pages: TiffPage[] = [];
	let totalPixels = 0;
	let copiedBytes = 0;
	for (const [index, directory] of directories.entries()) {
		const geometry = tiffPageGeometry(directory);
		if (geometry === undefined) return notProcessable("truncated or corrupt TIFF");
		const pixels = geometry.width * geometry.height;
		totalPixels += pixels;
		if (
			pixels > MAX_PAGE_PIXELS ||
			Math.max(geometry.width, geometry.height) > MAX_PAGE_SIDE_PIXELS ||
			Math.max(geometry.widthPoints, geometry.heightPoints) > MAX_PAGE_SIDE_POINTS
		) {
			return notProcessable(`TIFF page ${index + 1} is too large`);
		}
		if (Math.min(geometry.widthPoints, geometry.heightPoints) < MIN_PAGE_SIDE_POINTS) {
			return notProcessable(`TIFF page ${index + 1} is too small`);
		}
		if (totalPixels > MAX_TOTAL_PIXELS) {
			return notProcessable("TIFF has too many pixels in total");
		}
		const strips = tiffStrips(directory, geometry.height, tiff.length);
		if (strips === "truncated") {
			return notProcessable(`TIFF page ${index + 1} is truncated or corrupt`);
		}
		const coding = geometry.bilevel ? ccittCoding(directory) : undefined;
		if (coding === undefined || strips === "tiled" || strips.length > MAX_STRIPS_COPIED_PER_PAGE) {
			pages.push({ geometry });
			continue;
		}
		// Strips may overlap; copied, they must not make the PDF larger than the file.
		copiedBytes += strips.reduce((sum, strip) => sum + strip.length, 0);
		if (copiedBytes > tiff.length) return notProcessable("truncated or corrupt TIFF");
		pages.push({ geometry, copied: { coding, strips } });
	}
	return pages;
}

/** One image per strip, stacked from the top of the page. */
function stripImages(tiff: Uint8Array, width: number, coding: CcittCoding, strips: TiffStrip[]): PdfImage[] {
	let top = 0;
	return strips.map(({ offset, length, rows }) => {
		const data = tiff.subarray(offset, offset + length);
		const image = {
			dictionary:
				`/Width ${width} /Height ${rows} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode ` +
				`/DecodeParms << /K ${coding.k} /Columns ${width} /Rows ${rows} /BlackIs1 ${coding.blackIs1} ` +
				`/EncodedByteAlign ${coding.encodedByteAlign} >>`,
			data: coding.reversedBits ? reverseBits(data) : data,
			top,
			rows,
		};
		top += rows;
		return image;
	});
}

const REVERSED_BYTE = Uint8Array.from({ length: 256 }, (_, byte) => {
	let reversed = 0;
	for (let bit = 0; bit < 8; bit++) reversed |= ((byte >> bit) & 1) << (7 - bit);
	return reversed;
});

function reverseBits(data: Uint8Array): Uint8Array {
	const reversed = new Uint8Array(data.length);
	for (let i = 0; i < data.length; i++) reversed[i] = REVERSED_BYTE[data[i] ?? 0] ?? 0;
	return reversed;
}
