import type { TiffPageFacts } from "../document/index.ts";
import type { DocumentReport, TiffPage } from "./report.ts";

// TIFF Compression values (TIFF 6.0, and libtiff's tiff.h for JBIG).
const CODINGS: Record<number, string> = {
	1: "uncompressed",
	2: "MH",
	4: "MMR",
	5: "LZW",
	7: "JPEG",
	8: "Deflate",
	32773: "PackBits",
	32946: "Deflate",
	34661: "JBIG",
};
const COMPRESSION_T4 = 3;
const T4_2D = 1;
const UNIT_NONE = 1;
const UNIT_CENTIMETRE = 3;

/** MH, MR or MMR for the CCITT codings a fax uses; T.4 is MR only with 2-D coding on. */
function codingOf(page: TiffPageFacts): string {
	const compression = page.compression ?? 1;
	if (compression === COMPRESSION_T4) return page.t4Options & T4_2D ? "MR" : "MH";
	return CODINGS[compression] ?? `TIFF compression ${compression}`;
}

function dpi(resolution: number | null, unit: number): number | null {
	if (resolution === null || !Number.isFinite(resolution) || resolution <= 0 || unit === UNIT_NONE)
		return null;
	return Math.round((unit === UNIT_CENTIMETRE ? resolution * 2.54 : resolution) * 100) / 100;
}

function tiffPage(page: TiffPageFacts): TiffPage | null {
	if (page.width === null || page.height === null) return null;
	return {
		width: page.width,
		height: page.height,
		xDpi: dpi(page.xResolution, page.resolutionUnit),
		yDpi: dpi(page.yResolution, page.resolutionUnit),
	};
}

/** A TIFF's format, coding, page count and first page, from its tags. */
export function tiffDocument(pages: TiffPageFacts[]): DocumentReport {
	const first = pages[0];
	return {
		format: "TIFF",
		coding: first === undefined ? "unknown" : codingOf(first),
		pages: pages.length,
		firstPage: first === undefined ? null : tiffPage(first),
		pageLengths: pages.map((page) => page.height ?? 0),
	};
}
