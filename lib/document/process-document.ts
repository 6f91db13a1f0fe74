import { errorMessage } from "../util/index.ts";
import { checkPdfEnding } from "./check-pdf.ts";
import { detectFormat } from "./detect-format.ts";
import { MAX_INPUT_BYTES } from "./limits.ts";
import { isHostFault, requireParts } from "./pipeline.ts";
import { type NotProcessable, notProcessable, type ProcessedDocument } from "./result.ts";

export type { NotProcessable, ProcessedDocument } from "./result.ts";

/**
 * Turns a received PDF or TIFF into the PDF to store, its page count and a
 * thumbnail of page 1. Whatever is wrong with the input comes back as a
 * reason; what is wrong with the host (a part of the pipeline that does not
 * load, an errno failure) is thrown, so the fax is not listed and is tried
 * again (PipelineUnavailableError). An email must go through parseFaxEmail first.
 */
export async function processDocument(bytes: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
	try {
		return await process(bytes);
	} catch (error) {
		if (isHostFault(error)) throw error;
		return notProcessable(`file could not be processed: ${errorMessage(error).split("\n")[0]}`);
	}
}

// Each format loads only its own libraries: PDFium alone takes longer to
// start than a whole fax takes to convert.
async function process(bytes: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
	if (bytes.length === 0) return notProcessable("file is empty");
	if (bytes.length > MAX_INPUT_BYTES) {
		return notProcessable(`file is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB`);
	}
	switch (detectFormat(bytes)) {
		case "pdf": {
			const truncated = checkPdfEnding(bytes);
			if (truncated) return truncated;
			await requireParts(["sharp", "PDFium"]);
			const { processPdf } = await import("./process-pdf.ts");
			return processPdf(bytes);
		}
		case "tiff": {
			await requireParts(["sharp"]);
			const { processTiff } = await import("./process-tiff.ts");
			return processTiff(bytes);
		}
		default:
			return notProcessable("not a PDF or TIFF file");
	}
}
