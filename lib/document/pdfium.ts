import { PDFiumModule } from "@hyzyla/pdfium";
import { MAX_PDFIUM_WORKING_BYTES } from "./limits.ts";
import { type NotProcessable, notProcessable } from "./result.ts";

// We use PDFium's C API directly rather than the package's wrapper: it gives
// page sizes without loading pages, image sizes before decoding them, and a
// bitmap smaller than the page when rendering a very long page.
type Pdfium = Awaited<ReturnType<typeof PDFiumModule>> & {
	_FPDF_InitLibrary(): void;
	_FPDF_GetPageSizeByIndexF(document: number, index: number, size: number): number;
	_FPDFFormObj_CountObjects(object: number): number;
	_FPDFFormObj_GetObject(object: number, index: number): number;
	wasmExports: { memory: WebAssembly.Memory };
};

type ModuleOptions = Parameters<typeof PDFiumModule>[0] & {
	printErr(message: string): void;
};

const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;
const FPDF_PAGEOBJ_IMAGE = 3;
const FPDF_PAGEOBJ_FORM = 5;
const FPDFBITMAP_BGRA = 4;
const FPDF_ANNOT = 0x01;
// Makes the BGRA bitmap RGBA, which sharp reads as is.
const FPDF_REVERSE_BYTE_ORDER = 0x10;
// PDFium itself stops nesting forms well before this.
const MAX_FORM_DEPTH = 32;

let instance: Promise<Pdfium> | undefined;
// Set for each document: the heap may hold it and MAX_PDFIUM_WORKING_BYTES
// more. Unbounded only while the module starts.
let heapLimit = Number.POSITIVE_INFINITY;

class OutOfMemory extends Error {}

/** PDFium, started once; a start that failed is tried again on the next call. */
export function pdfium(): Promise<Pdfium> {
	instance ??= loadPdfium().catch((error: unknown) => {
		instance = undefined;
		throw error;
	});
	return instance;
}

async function loadPdfium(): Promise<Pdfium> {
	// Emscripten would print every refused allocation and the abort to
	// stderr; withPdf turns them into a reason instead.
	const options: ModuleOptions = { printErr: () => {} };
	const module = (await PDFiumModule(options)) as Pdfium;
	capHeap(module.wasmExports.memory);
	module._FPDF_InitLibrary();
	return module;
}

// The module's heap may grow to 2 GiB, and a page whose content stream
// inflates to gigabytes would take all of it. Emscripten grows the heap
// through this method; refusing makes PDFium's allocation fail, and PDFium
// aborts, which withPdf reports.
function capHeap(memory: WebAssembly.Memory): void {
	const grow = memory.grow.bind(memory);
	memory.grow = (pages: number) => {
		if (memory.buffer.byteLength + pages * 65_536 > heapLimit) {
			throw new RangeError("PDFium heap limit reached");
		}
		return grow(pages);
	};
}

/**
 * Opens `bytes` in PDFium for the duration of `use`. A file PDFium cannot open
 * is not processable; so is one that makes PDFium abort (out of memory).
 */
export async function withPdf<T>(
	bytes: Uint8Array,
	use: (document: PdfDocument) => Promise<T>,
): Promise<T | NotProcessable> {
	const module = await pdfium();
	heapLimit = module.wasmExports.memory.buffer.byteLength + bytes.length + MAX_PDFIUM_WORKING_BYTES;
	const buffer = module.wasmExports.malloc(bytes.length);
	if (buffer === 0) return notProcessable("PDF is too large to open");
	let handle = 0;
	let aborted = false;
	try {
		module.HEAPU8.set(bytes, buffer);
		handle = module._FPDF_LoadMemDocument(buffer, bytes.length, 0);
		if (handle === 0) {
			const error = module._FPDF_GetLastError();
			return notProcessable(
				error === FPDF_ERR_PASSWORD || error === FPDF_ERR_SECURITY
					? "PDF is encrypted"
					: "truncated or corrupt PDF",
			);
		}
		return await use(new PdfDocument(module, handle));
	} catch (error) {
		if (error instanceof WebAssembly.RuntimeError) {
			// An aborted Emscripten module refuses every later call.
			aborted = true;
			instance = undefined;
		} else if (!(error instanceof OutOfMemory)) {
			throw error;
		}
		return notProcessable("PDF needs too much memory to render");
	} finally {
		if (!aborted) {
			if (handle !== 0) module._FPDF_CloseDocument(handle);
			module.wasmExports.free(buffer);
		}
	}
}

export type PageSize = { width: number; height: number };

export class PdfDocument {
	constructor(
		private readonly module: Pdfium,
		private readonly handle: number,
	) {}

	pageCount(): number {
		return this.module._FPDF_GetPageCount(this.handle);
	}

	/** In points, rotation applied; undefined when the page tree has no such page. */
	pageSize(index: number): PageSize | undefined {
		return this.withScratch(8, (size) => {
			if (!this.module._FPDF_GetPageSizeByIndexF(this.handle, index, size)) {
				return undefined;
			}
			const view = this.heap();
			return {
				width: view.getFloat32(size, true),
				height: view.getFloat32(size + 4, true),
			};
		});
	}

	/** Pixels of all images drawn on the page, as declared, before any decoding. */
	imagePixels(index: number): number | undefined {
		return this.withPage(index, (page) =>
			this.withScratch(8, (size) => {
				const count = (object: number, depth: number): number => {
					const type = this.module._FPDFPageObj_GetType(object);
					if (type === FPDF_PAGEOBJ_IMAGE) {
						if (!this.module._FPDFImageObj_GetImagePixelSize(object, size, size + 4)) {
							return 0;
						}
						const view = this.heap();
						return view.getUint32(size, true) * view.getUint32(size + 4, true);
					}
					if (type !== FPDF_PAGEOBJ_FORM || depth === MAX_FORM_DEPTH) return 0;
					let pixels = 0;
					const children = this.module._FPDFFormObj_CountObjects(object);
					for (let i = 0; i < children; i++) {
						pixels += count(this.module._FPDFFormObj_GetObject(object, i), depth + 1);
					}
					return pixels;
				};
				let pixels = 0;
				const objects = this.module._FPDFPage_CountObjects(page);
				for (let i = 0; i < objects; i++) {
					pixels += count(this.module._FPDFPage_GetObject(page, i), 0);
				}
				return pixels;
			}),
		);
	}

	/**
	 * Renders the page scaled to `width` × `pageHeight` pixels into a bitmap
	 * `height` pixels tall (the top of the page when smaller). RGBA, white
	 * background; undefined when the page cannot be loaded.
	 */
	render(index: number, width: number, height: number, pageHeight: number): Uint8Array | undefined {
		return this.withPage(index, (page) =>
			this.withScratch(width * height * 4, (pixels) => {
				const bitmap = this.module._FPDFBitmap_CreateEx(width, height, FPDFBITMAP_BGRA, pixels, width * 4);
				if (bitmap === 0) throw new OutOfMemory();
				try {
					this.module._FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
					this.module._FPDF_RenderPageBitmap(
						bitmap,
						page,
						0,
						0,
						width,
						pageHeight,
						0,
						FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER,
					);
					return this.module.HEAPU8.slice(pixels, pixels + width * height * 4);
				} finally {
					this.module._FPDFBitmap_Destroy(bitmap);
				}
			}),
		);
	}

	private withPage<T>(index: number, use: (page: number) => T): T | undefined {
		const page = this.module._FPDF_LoadPage(this.handle, index);
		if (page === 0) return undefined;
		try {
			return use(page);
		} finally {
			this.module._FPDF_ClosePage(page);
		}
	}

	private withScratch<T>(bytes: number, use: (pointer: number) => T): T {
		const pointer = this.module.wasmExports.malloc(bytes);
		if (pointer === 0) throw new OutOfMemory();
		try {
			return use(pointer);
		} finally {
			this.module.wasmExports.free(pointer);
		}
	}

	// The heap's buffer is replaced whenever the module's memory grows.
	private heap(): DataView {
		return new DataView(this.module.HEAPU8.buffer);
	}
}
