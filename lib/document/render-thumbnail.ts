import sharp from "sharp";
import { MAX_THUMBNAIL_HEIGHT, THUMBNAIL_JPEG, THUMBNAIL_WIDTH } from "./limits.ts";
import type { PageSize, PdfDocument } from "./pdfium.ts";

/** JPEG of page 1, THUMBNAIL_WIDTH wide; undefined when the page cannot be loaded. */
export async function renderThumbnail(
	document: PdfDocument,
	page: PageSize,
): Promise<Uint8Array | undefined> {
	const pageHeight = Math.max(1, Math.round((THUMBNAIL_WIDTH * page.height) / page.width));
	const height = Math.min(pageHeight, MAX_THUMBNAIL_HEIGHT);
	const pixels = document.render(0, THUMBNAIL_WIDTH, height, pageHeight);
	if (pixels === undefined) return undefined;
	return sharp(pixels, { raw: { width: THUMBNAIL_WIDTH, height, channels: 4 } })
		.removeAlpha()
		.jpeg(THUMBNAIL_JPEG)
		.toBuffer();
}
