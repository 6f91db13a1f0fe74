import { isHostFault } from "./pipeline.ts";
import { type NotProcessable, notProcessable, type ProcessedDocument } from "./result.ts";
import { tiffThumbnail } from "./tiff-thumbnail.ts";
import { convertTiffToPdf } from "./tiff-to-pdf.ts";

/** A TIFF becomes a PDF of its frames; the thumbnail is made from its first frame. */
export async function processTiff(tiff: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
	const converted = await convertTiffToPdf(tiff);
	if (!converted.ok) return converted;
	let thumbnail: Uint8Array;
	try {
		thumbnail = await tiffThumbnail(converted.tiff, converted.firstPage);
	} catch (error) {
		if (isHostFault(error)) throw error;
		return notProcessable("TIFF page 1 is truncated or corrupt");
	}
	return { ok: true, pdf: converted.pdf, thumbnail, pageCount: converted.pageCount };
}
