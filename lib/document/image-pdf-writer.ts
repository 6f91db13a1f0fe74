// Writes a PDF whose pages are images and nothing else, straight to bytes:
// image data is copied in as it is, never decoded. A general PDF library
// would cost a tenth of a second just to load, more than the whole job.

/** An image XObject as wide as the page, and the rows of the page it fills. */
export type PdfImage = {
	/** The image dictionary without Type, Subtype and Length, e.g. "/Width 1728 /Height 256 ...". */
	dictionary: string;
	data: Uint8Array;
	/** Rows of the page above the image. */
	top: number;
	rows: number;
};

/** A page's size in points, and the grid of pixels its images are laid out on. */
export type PdfPageSize = { widthPoints: number; heightPoints: number; width: number; height: number };

const HEADER = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
const CATALOG = 1;
const PAGES = 2;

export class ImagePdfWriter {
	private readonly parts: Uint8Array[] = [];
	private length = 0;
	// Byte offset of each object, by object number; 0 is the free list head.
	private readonly offsets: number[] = [0, 0, 0];
	private readonly pages: number[] = [];

	constructor() {
		this.write(HEADER);
	}

	get pageCount(): number {
		return this.pages.length;
	}

	addPage(size: PdfPageSize, images: PdfImage[]): void {
		const page = this.reserve();
		const contents = this.reserve();
		const names = images.map((image, index) => {
			const number = this.reserve();
			this.writeStream(number, `/Type /XObject /Subtype /Image ${image.dictionary}`, image.data);
			return `/I${index} ${number} 0 R`;
		});
		// Images are placed in whole pixels of the page's grid: a reader
		// drawing a strip at a fraction of a pixel would blur its edges.
		const operators = [
			`q ${num(size.widthPoints / size.width)} 0 0 ${num(size.heightPoints / size.height)} 0 0 cm`,
			...images.map(
				({ top, rows }, index) =>
					`q ${size.width} 0 0 ${rows} 0 ${size.height - top - rows} cm /I${index} Do Q`,
			),
			"Q",
		];
		this.writeStream(contents, "", latin1(operators.join("\n")));
		this.writeObject(
			page,
			`<< /Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(size.widthPoints)} ${num(size.heightPoints)}] ` +
				`/Resources << /XObject << ${names.join(" ")} >> >> /Contents ${contents} 0 R >>`,
		);
		this.pages.push(page);
	}

	/** The whole file; the writer is done with after this. */
	finish(): Uint8Array {
		const kids = this.pages.map((page) => `${page} 0 R`).join(" ");
		this.writeObject(PAGES, `<< /Type /Pages /Kids [${kids}] /Count ${this.pages.length} >>`);
		this.writeObject(CATALOG, `<< /Type /Catalog /Pages ${PAGES} 0 R >>`);
		const xref = this.length;
		const entries = this.offsets
			.map((offset, number) =>
				number === 0 ? "0000000000 65535 f \n" : `${String(offset).padStart(10, "0")} 00000 n \n`,
			)
			.join("");
		this.write(
			`xref\n0 ${this.offsets.length}\n${entries}` +
				`trailer\n<< /Size ${this.offsets.length} /Root ${CATALOG} 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
		);
		return Buffer.concat(this.parts, this.length);
	}

	private reserve(): number {
		this.offsets.push(0);
		return this.offsets.length - 1;
	}

	private writeObject(number: number, body: string): void {
		this.offsets[number] = this.length;
		this.write(`${number} 0 obj\n${body}\nendobj\n`);
	}

	private writeStream(number: number, dictionary: string, data: Uint8Array): void {
		this.offsets[number] = this.length;
		this.write(`${number} 0 obj\n<< ${dictionary} /Length ${data.length} >>\nstream\n`);
		this.append(data);
		this.write("\nendstream\nendobj\n");
	}

	private write(text: string): void {
		this.append(latin1(text));
	}

	private append(bytes: Uint8Array): void {
		this.parts.push(bytes);
		this.length += bytes.length;
	}
}

/** A PDF number: no exponent, at most 6 decimals. */
function num(value: number): string {
	return String(Number(value.toFixed(6)));
}

function latin1(text: string): Uint8Array {
	return Buffer.from(text, "latin1");
}
