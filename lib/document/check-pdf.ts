import { MAX_PAGE_PIXELS, MAX_PAGE_SIDE_POINTS, MAX_PAGES, MIN_PAGE_SIDE_POINTS } from "./limits.ts";
import type { PageSize, PdfDocument } from "./pdfium.ts";
import { type NotProcessable, notProcessable } from "./result.ts";

// Readers require "%%EOF" within the last KiB. PDFium would instead rebuild a
// cut-off file from what is left and show fewer pages without complaint.
const EOF_MARKER_WINDOW = 1024;

export function checkPdfEnding(bytes: Uint8Array): NotProcessable | undefined {
	const tail = new TextDecoder("latin1").decode(bytes.subarray(-EOF_MARKER_WINDOW));
	return tail.includes("%%EOF") ? undefined : notProcessable("truncated or corrupt PDF");
}

export type CheckedPdf = { ok: true; pageCount: number; firstPage: PageSize };

/** Page count, page sizes and the images of page 1 (the one we render) within limits. */
export function checkPdfPages(document: PdfDocument): CheckedPdf | NotProcessable {
	const pageCount = document.pageCount();
	if (pageCount === 0) return notProcessable("PDF has no pages");
	if (pageCount > MAX_PAGES) {
		return notProcessable(`PDF has more than ${MAX_PAGES} pages`);
	}
	let firstPage: PageSize | undefined;
	for (let index = 0; index < pageCount; index++) {
		const size = document.pageSize(index);
		if (size === undefined) return notProcessable("truncated or corrupt PDF");
		const longest = Math.max(size.width, size.height);
		const shortest = Math.min(size.width, size.height);
		if (longest > MAX_PAGE_SIDE_POINTS) {
			return notProcessable(`PDF page ${index + 1} is too large`);
		}
		if (!(shortest >= MIN_PAGE_SIDE_POINTS)) {
			return notProcessable(`PDF page ${index + 1} is too small`);
		}
		firstPage ??= size;
	}
	const pixels = document.imagePixels(0);
	if (pixels === undefined || firstPage === undefined) {
		return notProcessable("truncated or corrupt PDF");
	}
	if (pixels > MAX_PAGE_PIXELS) {
		return notProcessable("PDF page 1 has images too large to render");
	}
	return { ok: true, pageCount, firstPage };
}
