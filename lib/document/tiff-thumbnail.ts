import sharp from "sharp";
import { MAX_PAGE_PIXELS, MAX_THUMBNAIL_HEIGHT, THUMBNAIL_JPEG, THUMBNAIL_WIDTH } from "./limits.ts";
import type { TiffPageGeometry } from "./tiff-page-geometry.ts";

/**
 * JPEG of the TIFF's first frame, THUMBNAIL_WIDTH wide and as tall as the
 * page's physical aspect makes it (the top part of a very long page). The
 * one frame decoded whatever the compression, so a first page that does not
 * decode makes the file not processable. Throws when libvips cannot decode it.
 */
export async function tiffThumbnail(tiff: Uint8Array, page: TiffPageGeometry): Promise<Uint8Array> {
	const pageHeight = Math.max(1, Math.round((THUMBNAIL_WIDTH * page.heightPoints) / page.widthPoints));
	const height = Math.min(pageHeight, MAX_THUMBNAIL_HEIGHT);
	return sharp(tiff, { page: 0, limitInputPixels: MAX_PAGE_PIXELS, failOn: "error" })
		.resize(THUMBNAIL_WIDTH, pageHeight, { fit: "fill" })
		.extract({ left: 0, top: 0, width: THUMBNAIL_WIDTH, height })
		.flatten({ background: "#ffffff" })
		.jpeg(THUMBNAIL_JPEG)
		.toBuffer();
}
