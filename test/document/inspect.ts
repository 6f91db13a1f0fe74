// What a test needs to know about an output, read with other code than the
// one that wrote it: pdf-lib, poppler (pdfinfo, pdftoppm) and the PDFium
// package's own wrapper for the PDF, sharp for the JPEG and for the pixels
// of a source TIFF.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFiumLibrary } from "@hyzyla/pdfium";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { processDocument } from "../../lib/document/index.ts";
import { outputOf } from "../../testkit/processes.ts";

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

export type GreyImage = { data: Uint8Array; width: number; height: number };

/** Frame `page` of a TIFF, decoded by libtiff through sharp, one byte per pixel. */
export async function tiffPage(tiff: Uint8Array, page: number): Promise<GreyImage> {
	const { data, info } = await sharp(tiff, { page }).greyscale().raw().toBuffer({ resolveWithObject: true });
	return { data, width: info.width, height: info.height };
}

/** What poppler says of a PDF: `pdfinfo`'s page sizes in points, and `pdftoppm`'s rendering of a page. */
export async function withPoppler<T>(
	pdf: Uint8Array,
	use: (poppler: {
		pageSizes(): Promise<string[]>;
		render(page: number, width: number, height: number): Promise<GreyImage>;
	}) => Promise<T>,
): Promise<T> {
	const dir = await mkdtemp(join(tmpdir(), "testfax-poppler-"));
	const file = join(dir, "document.pdf");
	await Bun.write(file, pdf);
	const run = async (command: string[]) => {
		const { stdout, stderr, code } = await outputOf(Bun.spawn(command, { stdout: "pipe", stderr: "pipe" }));
		if (code !== 0 || stderr !== "") throw new Error(`${command[0]} failed (${code}): ${stderr}`);
		return stdout;
	};
	try {
		return await use({
			async pageSizes() {
				const info = await run(["pdfinfo", "-f", "1", "-l", "1000", file]);
				return [...info.matchAll(/^Page +\d+ size: +(.*) pts/gm)].map((match) => match[1] ?? "");
			},
			async render(page, width, height) {
				const out = join(dir, `page-${page}`);
				const size = ["-scale-to-x", String(width), "-scale-to-y", String(height)];
				await run([
					"pdftoppm",
					"-f",
					String(page + 1),
					"-l",
					String(page + 1),
					...size,
					"-gray",
					"-singlefile",
					file,
					out,
				]);
				return parsePgm(await Bun.file(`${out}.pgm`).bytes());
			},
		});
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

// pdftoppm's binary greymap: "P5", width, height, maximum value, then a byte a pixel.
function parsePgm(pgm: Uint8Array): GreyImage {
	const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(new TextDecoder("latin1").decode(pgm.subarray(0, 64)));
	if (header === null) throw new Error("pdftoppm wrote no 8-bit greymap");
	const [, width, height] = header.map(Number);
	return { data: pgm.subarray(header[0].length), width: width ?? 0, height: height ?? 0 };
}

/** Page `index` rendered by the PDFium package's own wrapper, one byte per pixel. */
export async function pdfiumPage(
	pdf: Uint8Array,
	index: number,
	width: number,
	height: number,
): Promise<GreyImage> {
	const png = await renderedPage(pdf, index, width, height);
	const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
	return { data, width: info.width, height: info.height };
}

/**
 * Pixels whose black or white differs between `expected` and `actual`, of
 * the same size, leaving out those next to an edge in `expected`: readers
 * smooth edges by a pixel. A page decoded wrongly differs in whole runs.
 */
export function mismatchesAwayFromEdges(expected: GreyImage, actual: GreyImage): number {
	if (expected.width !== actual.width || expected.height !== actual.height) {
		throw new Error(
			`sizes differ: ${expected.width}x${expected.height} and ${actual.width}x${actual.height}`,
		);
	}
	const { width, height } = expected;
	const black = (image: GreyImage, x: number, y: number) => (image.data[y * width + x] ?? 255) < 128;
	const nearEdge = (x: number, y: number) => {
		const colour = black(expected, x, y);
		for (let dy = -1; dy <= 1; dy++) {
			for (let dx = -1; dx <= 1; dx++) {
				const [nx, ny] = [x + dx, y + dy];
				if (nx >= 0 && ny >= 0 && nx < width && ny < height && black(expected, nx, ny) !== colour)
					return true;
			}
		}
		return false;
	};
	let mismatches = 0;
	for (let y = 0; y < height; y++) {
		for (let x = 0; x < width; x++) {
			if (black(expected, x, y) !== black(actual, x, y) && !nearEdge(x, y)) mismatches++;
		}
	}
	return mismatches;
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
