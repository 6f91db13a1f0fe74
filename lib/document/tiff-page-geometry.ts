import { TIFF_TAG, type TiffDirectory } from "./tiff-directories.ts";

export type TiffPageGeometry = {
	width: number;
	height: number;
	/** 1-bit black and white, as every fax is: kept lossless as CCITT G4. */
	bilevel: boolean;
	/** Physical page size from the resolution tags, in points. */
	widthPoints: number;
	heightPoints: number;
};

// Resolution tags outside this range are nonsense (or absent): the page then
// gets DEFAULT_DPI, which is near every fax and scanner resolution.
const MIN_DPI = 20;
const MAX_DPI = 10_000;
const DEFAULT_DPI = 200;
const RESOLUTION_UNIT_CENTIMETRE = 3;

/** Undefined when the directory lacks the image size. */
export function tiffPageGeometry(directory: TiffDirectory): TiffPageGeometry | undefined {
	const width = directory.first(TIFF_TAG.imageWidth);
	const height = directory.first(TIFF_TAG.imageLength);
	if (!width || !height) return undefined;
	const photometric = directory.first(TIFF_TAG.photometric);
	const bilevel =
		(directory.first(TIFF_TAG.bitsPerSample) ?? 1) === 1 &&
		(directory.first(TIFF_TAG.samplesPerPixel) ?? 1) === 1 &&
		(photometric === 0 || photometric === 1);
	// Fax resolutions are not square (204 × 98 dpi in normal mode), so each
	// axis gets its own: otherwise the page comes out stretched.
	const perInch = directory.first(TIFF_TAG.resolutionUnit) === RESOLUTION_UNIT_CENTIMETRE ? 2.54 : 1;
	const x = plausibleDpi(directory.first(TIFF_TAG.xResolution), perInch);
	const y = plausibleDpi(directory.first(TIFF_TAG.yResolution), perInch);
	const xDpi = x ?? y ?? DEFAULT_DPI;
	const yDpi = y ?? x ?? DEFAULT_DPI;
	return {
		width,
		height,
		bilevel,
		widthPoints: (width / xDpi) * 72,
		heightPoints: (height / yDpi) * 72,
	};
}

function plausibleDpi(resolution: number | undefined, perInch: number): number | undefined {
	if (resolution === undefined) return undefined;
	const dpi = resolution * perInch;
	return dpi >= MIN_DPI && dpi <= MAX_DPI ? dpi : undefined;
}
