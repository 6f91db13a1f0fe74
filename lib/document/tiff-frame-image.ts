import sharp from "sharp";
import { MAX_PAGE_PIXELS } from "./limits.ts";
import { readTiffDirectories, TIFF_TAG } from "./tiff-directories.ts";
import type { TiffPageGeometry } from "./tiff-page-geometry.ts";

/** One decoded and re-encoded TIFF frame, as a PDF image dictionary and its data. */
export type FrameImage = { dictionary: string; data: Uint8Array };

const JPEG_QUALITY = 85;
const PHOTOMETRIC_MIN_IS_BLACK = 1;

/**
 * Decodes frame `page` alone (never the whole file) and re-encodes it in a
 * compression a PDF carries: a bilevel frame as one G4 strip, anything else
 * as JPEG. For frames whose own compression cannot be copied into a PDF.
 * Throws when libvips cannot decode the frame.
 */
export async function encodeFrame(
	tiff: Uint8Array,
	page: number,
	geometry: TiffPageGeometry,
): Promise<FrameImage> {
	// Fails on a bad code word, after which the rest of a G4 page would be
	// garbage, but not on what libtiff merely warns about (a short line, data
	// ending early, a sloppy directory), which received faxes do have.
	const frame = sharp(tiff, {
		page,
		limitInputPixels: MAX_PAGE_PIXELS,
		failOn: "error",
	});
	if (!geometry.bilevel) {
		const { data, info } = await frame
			.flatten({ background: "#ffffff" })
			.jpeg({ quality: JPEG_QUALITY })
			.toBuffer({ resolveWithObject: true });
		const colourSpace = info.channels === 1 ? "DeviceGray" : "DeviceRGB";
		return {
			dictionary: `/Width ${info.width} /Height ${info.height} /ColorSpace /${colourSpace} /BitsPerComponent 8 /Filter /DCTDecode`,
			data,
		};
	}
	const g4 = await frame
		.toColourspace("b-w")
		.tiff({
			compression: "ccittfax4",
			bitdepth: 1,
			miniswhite: true,
			tileHeight: geometry.height,
		})
		.toBuffer();
	const { data, width, height, blackIs1 } = singleStrip(g4);
	return {
		dictionary:
			`/Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode ` +
			`/DecodeParms << /K -1 /Columns ${width} /Rows ${height} /BlackIs1 ${blackIs1} >>`,
		data,
	};
}

function singleStrip(g4: Uint8Array) {
	const directories = readTiffDirectories(g4, 1);
	const written = Array.isArray(directories) ? directories[0] : undefined;
	const offsets = written?.values(TIFF_TAG.stripOffsets, 2) ?? [];
	const counts = written?.values(TIFF_TAG.stripByteCounts, 2) ?? [];
	const width = written?.first(TIFF_TAG.imageWidth);
	const height = written?.first(TIFF_TAG.imageLength);
	const [offset] = offsets;
	const [count] = counts;
	if (
		offsets.length !== 1 ||
		offset === undefined ||
		count === undefined ||
		width === undefined ||
		height === undefined
	) {
		throw new Error("libvips did not write a single-strip G4 TIFF");
	}
	return {
		data: g4.subarray(offset, offset + count),
		width,
		height,
		blackIs1: written?.first(TIFF_TAG.photometric) === PHOTOMETRIC_MIN_IS_BLACK,
	};
}
