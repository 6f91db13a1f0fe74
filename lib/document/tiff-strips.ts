import { TIFF_TAG, type TiffDirectory } from "./tiff-directories.ts";

/** Where one strip's data lies in the file, and how many rows of the page it holds. */
export type TiffStrip = { offset: number; length: number; rows: number };

// TIFF's default RowsPerStrip: the whole image in one strip.
const ALL_ROWS = 2 ** 32 - 1;

/**
 * The strips of a page `height` rows tall, checked against the file's
 * length: "tiled" for a tiled page, "truncated" when a strip is missing,
 * empty or reaches past the end of the file. Reads no more offsets than the
 * page has strips, whatever the file declares.
 */
export function tiffStrips(
	directory: TiffDirectory,
	height: number,
	fileLength: number,
): TiffStrip[] | "tiled" | "truncated" {
	if (directory.count(TIFF_TAG.tileWidth) !== undefined) return "tiled";
	const rowsPerStrip = Math.min(directory.first(TIFF_TAG.rowsPerStrip) ?? ALL_ROWS, height);
	if (rowsPerStrip === 0) return "truncated";
	const stripCount = Math.ceil(height / rowsPerStrip);
	// libtiff ignores offsets beyond those the page needs, so we do too.
	if (
		(directory.count(TIFF_TAG.stripOffsets) ?? 0) < stripCount ||
		(directory.count(TIFF_TAG.stripByteCounts) ?? 0) < stripCount
	) {
		return "truncated";
	}
	const offsets = directory.values(TIFF_TAG.stripOffsets, stripCount);
	const lengths = directory.values(TIFF_TAG.stripByteCounts, stripCount);
	if (offsets === undefined || lengths === undefined) return "truncated";
	const strips: TiffStrip[] = [];
	for (let index = 0; index < stripCount; index++) {
		const offset = offsets[index] ?? 0;
		const length = lengths[index] ?? 0;
		if (length === 0 || offset + length > fileLength) return "truncated";
		strips.push({ offset, length, rows: Math.min(rowsPerStrip, height - index * rowsPerStrip) });
	}
	return strips;
}
