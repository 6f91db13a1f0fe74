import { errorMessage } from "../util/index.ts";
import { checkPdfEnding, checkPdfPages } from "./check-pdf.ts";
import { detectFormat } from "./detect-format.ts";
import { MAX_INPUT_BYTES } from "./limits.ts";
import { withPdf } from "./pdfium.ts";
import { renderThumbnail } from "./render-thumbnail.ts";
import { type NotProcessable, notProcessable, type ProcessedDocument } from "./result.ts";
import { convertTiffToPdf } from "./tiff-to-pdf.ts";

export type { NotProcessable, ProcessedDocument } from "./result.ts";

/**
 * Turns a received PDF or TIFF into the PDF to store, its page count and a
 * thumbnail of page 1. Never throws: whatever is wrong with the input comes
 * back as a reason. An email must go through parseFaxEmail first.
 */
export async function processDocument(bytes: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
	try {
		return await process(bytes);
	} catch (error) {
		return notProcessable(`file could not be processed: ${errorMessage(error).split("\n")[0]}`);
	}
}

async function process(bytes: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
	if (bytes.length === 0) return notProcessable("file is empty");
	if (bytes.length > MAX_INPUT_BYTES) {
		return notProcessable(`file is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB`);
	}
	let pdf: Uint8Array;
	switch (detectFormat(bytes)) {
		case "pdf": {
			const truncated = checkPdfEnding(bytes);
			if (truncated) return truncated;
			// Stored as received: re-saving could only lose something.
			pdf = bytes;
			break;
		}
		case "tiff": {
			const converted = await convertTiffToPdf(bytes);
			if (!(converted instanceof Uint8Array)) return converted;
			pdf = converted;
			break;
		}
		default:
			return notProcessable("not a PDF or TIFF file");
	}
	return withPdf(pdf, async (document) => {
		const checked = checkPdfPages(document);
		if (!checked.ok) return checked;
		const thumbnail = await renderThumbnail(document, checked.firstPage);
		if (thumbnail === undefined) {
			return notProcessable("truncated or corrupt PDF");
		}
		return { ok: true, pdf, thumbnail, pageCount: checked.pageCount };
	});
}
