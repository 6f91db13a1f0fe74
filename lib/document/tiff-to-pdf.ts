import {
	concatTransformationMatrix,
	drawObject,
	PDFDocument,
	type PDFPage,
	popGraphicsState,
	pushGraphicsState,
} from "pdf-lib";
import {
	MAX_PAGE_PIXELS,
	MAX_PAGE_SIDE_PIXELS,
	MAX_PAGE_SIDE_POINTS,
	MAX_PAGES,
	MAX_TOTAL_PIXELS,
	MIN_PAGE_SIDE_POINTS,
} from "./limits.ts";
import { type NotProcessable, notProcessable } from "./result.ts";
import { readTiffDirectories } from "./tiff-directories.ts";
import { encodeFrame, type FrameImage } from "./tiff-frame-image.ts";
import { type TiffPageGeometry, tiffPageGeometry } from "./tiff-page-geometry.ts";

/**
 * A PDF with one page per TIFF frame, sized from the frame's resolution.
 * Every frame's size is checked before any is decoded, and frames are
 * decoded one at a time, so memory stays bounded by one page.
 */
export async function convertTiffToPdf(tiff: Uint8Array): Promise<Uint8Array | NotProcessable> {
	const pages = checkPages(tiff);
	if (!Array.isArray(pages)) return pages;
	const pdf = await PDFDocument.create({ updateMetadata: false });
	for (const [index, geometry] of pages.entries()) {
		let image: FrameImage;
		try {
			image = await encodeFrame(tiff, index, geometry);
		} catch {
			return notProcessable(`TIFF page ${index + 1} is truncated or corrupt`);
		}
		const page = pdf.addPage([geometry.widthPoints, geometry.heightPoints]);
		await drawFrame(pdf, page, image);
	}
	return pdf.save();
}

function checkPages(tiff: Uint8Array): TiffPageGeometry[] | NotProcessable {
	const directories = readTiffDirectories(tiff, MAX_PAGES);
	if (directories === "corrupt") {
		return notProcessable("truncated or corrupt TIFF");
	}
	if (directories === "too-many") {
		return notProcessable(`TIFF has more than ${MAX_PAGES} pages`);
	}
	if (directories.length === 0) return notProcessable("TIFF has no pages");
	const pages: TiffPageGeometry[] = [];
	let totalPixels = 0;
	for (const [index, directory] of directories.entries()) {
		const page = tiffPageGeometry(directory);
		if (page === undefined) return notProcessable("truncated or corrupt TIFF");
		const pixels = page.width * page.height;
		totalPixels += pixels;
		if (
			pixels > MAX_PAGE_PIXELS ||
			Math.max(page.width, page.height) > MAX_PAGE_SIDE_PIXELS ||
			Math.max(page.widthPoints, page.heightPoints) > MAX_PAGE_SIDE_POINTS
		) {
			return notProcessable(`TIFF page ${index + 1} is too large`);
		}
		if (Math.min(page.widthPoints, page.heightPoints) < MIN_PAGE_SIDE_POINTS) {
			return notProcessable(`TIFF page ${index + 1} is too small`);
		}
		if (totalPixels > MAX_TOTAL_PIXELS) {
			return notProcessable("TIFF has too many pixels in total");
		}
		pages.push(page);
	}
	return pages;
}

async function drawFrame(pdf: PDFDocument, page: PDFPage, image: FrameImage): Promise<void> {
	const { width, height } = page.getSize();
	if (image.kind === "jpeg") {
		page.drawImage(await pdf.embedJpg(image.data), { width, height });
		return;
	}
	const stream = pdf.context.stream(image.data, {
		Type: "XObject",
		Subtype: "Image",
		Width: image.width,
		Height: image.height,
		ColorSpace: "DeviceGray",
		BitsPerComponent: 1,
		Filter: "CCITTFaxDecode",
		DecodeParms: {
			K: -1,
			Columns: image.width,
			Rows: image.height,
			BlackIs1: image.blackIs1,
		},
	});
	const name = page.node.newXObject("Fax", pdf.context.register(stream));
	page.pushOperators(
		pushGraphicsState(),
		concatTransformationMatrix(width, 0, 0, height, 0, 0),
		drawObject(name),
		popGraphicsState(),
	);
}
