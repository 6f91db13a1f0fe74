import { checkPdfPages } from "./check-pdf.ts";
import { withPdf } from "./pdfium.ts";
import { renderThumbnail } from "./render-thumbnail.ts";
import { type NotProcessable, notProcessable, type ProcessedDocument } from "./result.ts";

/** A PDF is stored as received (re-saving could only lose something), once PDFium has checked it. */
export function processPdf(pdf: Uint8Array): Promise<ProcessedDocument | NotProcessable> {
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
