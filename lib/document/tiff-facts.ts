import { MAX_PAGES } from "./limits.ts";
import { pageDirectories, readTiffDirectories, TIFF_TAG, type TiffDirectory } from "./tiff-directories.ts";

/** What one page's directory says of how it was sent and stored, read from its tags alone. */
export type TiffPageFacts = {
	width: number | null;
	height: number | null;
	/** XResolution and YResolution as written, in ResolutionUnit. */
	xResolution: number | null;
	yResolution: number | null;
	/** ResolutionUnit: 1 none, 2 inch (the default), 3 centimetre. */
	resolutionUnit: number;
	compression: number | null;
	/** Group3Options (T4Options): bit 0 set is 2-D coding. */
	t4Options: number;
	/** HylaFAX's FaxRecvParams: the session's parameters, packed (Class2Params::encode). */
	faxRecvParams: number | null;
	/** HylaFAX's FaxRecvTime: seconds this page took on the line. */
	faxRecvTime: number | null;
	/** HylaFAX's FaxDcs: the DCS frame the sender chose, as hex bytes (`00 44 1F 22`). */
	faxDcs: string | null;
};

// Far longer than a DCS frame (at most 20 bytes written as 60 characters).
const DCS_TEXT_BYTES = 128;
const RESOLUTION_UNIT_INCH = 2;

function pageFacts(directory: TiffDirectory): TiffPageFacts {
	const first = (tag: number) => directory.first(tag) ?? null;
	return {
		width: first(TIFF_TAG.imageWidth),
		height: first(TIFF_TAG.imageLength),
		xResolution: first(TIFF_TAG.xResolution),
		yResolution: first(TIFF_TAG.yResolution),
		resolutionUnit: directory.first(TIFF_TAG.resolutionUnit) ?? RESOLUTION_UNIT_INCH,
		compression: first(TIFF_TAG.compression),
		t4Options: directory.first(TIFF_TAG.t4Options) ?? 0,
		faxRecvParams: first(TIFF_TAG.faxRecvParams),
		faxRecvTime: first(TIFF_TAG.faxRecvTime),
		faxDcs: directory.text(TIFF_TAG.faxDcs, DCS_TEXT_BYTES) ?? null,
	};
}

/** The facts of each page of a TIFF, in page order; null when its directories cannot be read. */
export function tiffFacts(tiff: Uint8Array): TiffPageFacts[] | null {
	const directories = readTiffDirectories(tiff, MAX_PAGES);
	return typeof directories === "string" ? null : pageDirectories(directories).map(pageFacts);
}
