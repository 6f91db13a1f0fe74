import { MAX_PAGES } from "./limits.ts";
import { readTiffDirectories, TIFF_TAG } from "./tiff-directories.ts";

// A station ID (TSI) is at most 20 characters (T.30); the rest of the
// description is HylaFAX's caller-ID lines.
const DESCRIPTION_BYTES = 256;
const NO_TSI = new Set(["", "<UNSPECIFIED>"]);

/**
 * The sending station's ID of a fax HylaFAX received: the first line of the
 * first page's ImageDescription, where faxgetty writes the TSI and faxinfo
 * reads it ("Sender:"). Null when the sender gave none or the file has none.
 */
export function faxStationId(tiff: Uint8Array): string | null {
	const directories = readTiffDirectories(tiff, MAX_PAGES);
	if (typeof directories === "string" || directories.length === 0) return null;
	const description = directories[0]?.text(TIFF_TAG.imageDescription, DESCRIPTION_BYTES);
	const tsi = description?.split("\n", 1)[0]?.trim() ?? "";
	return NO_TSI.has(tsi) ? null : tsi;
}
