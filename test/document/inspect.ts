// What a test needs to know about an output, read with other code than the
// one that wrote it: pdf-lib and the PDFium package's own wrapper for the
// PDF, sharp for the JPEG.
import { PDFiumLibrary } from "@hyzyla/pdfium";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { processDocument } from "../../lib/document/index.ts";

export async function processed(input: Uint8Array) {
	const result = await processDocument(input);
	if (!result.ok) throw new Error(`not processed: ${result.reason}`);
	return result;
}

export async function pdfPageSizes(pdf: Uint8Array): Promise<number[][]> {
	const document = await PDFDocument.load(pdf);
	return document.getPages().map((page) => [page.getWidth(), page.getHeight()].map(round2));
}

/** Page `index` as a PNG `width` × `height` pixels, rendered by the PDFium package's own wrapper. */
export async function renderedPage(
	pdf: Uint8Array,
	index: number,
	width: number,
	height: number,
): Promise<Uint8Array> {
	const library = await PDFiumLibrary.init();
	const document = await library.loadDocument(pdf);
	try {
		const page = await document.getPage(index).render({ width, height });
		return await sharp(page.data, { raw: { width, height, channels: 4 } })
			.png()
			.toBuffer();
	} finally {
		document.destroy();
		library.destroy();
	}
}

export async function jpegInfo(jpeg: Uint8Array) {
	const { format, width, height } = await sharp(jpeg).metadata();
	return { format, width, height };
}

export type Box = { left: number; top: number; width: number; height: number };

/** Bounding box of the dark pixels of `image` inside `area`. */
export async function darkBox(image: Uint8Array, area: Box): Promise<Box> {
	const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
	let [left, top, right, bottom] = [Infinity, Infinity, -1, -1];
	for (let y = area.top; y < area.top + area.height; y++) {
		for (let x = area.left; x < area.left + area.width; x++) {
			if ((data[y * info.width + x] ?? 255) < 128) {
				left = Math.min(left, x);
				top = Math.min(top, y);
				right = Math.max(right, x);
				bottom = Math.max(bottom, y);
			}
		}
	}
	return { left, top, width: right - left + 1, height: bottom - top + 1 };
}

function round2(value: number): number {
	return Math.round(value * 100) / 100;
}
