// Real input files for the ingest tests, made on the fly so that what they
// contain is visible next to what the tests expect of them.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeflate } from "node:zlib";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import sharp from "sharp";

export const A4_POINTS: [number, number] = [595.28, 841.89];

export type FaxTiffOptions = {
	pages: number;
	width: number;
	height: number;
	xDpi: number;
	yDpi: number;
};

/**
 * Multi-page CCITT G4 TIFF as a fax receiver writes it. Page p (from 0) has
 * a black bar 10–20 % down the page, starting 10 % in and 20 % × (p + 1) long,
 * and a black square one inch wide and high (in physical size) at
 * 50 % across and 50 % down.
 */
export async function faxTiff(options: FaxTiffOptions): Promise<Uint8Array> {
	const { pages, width, height, xDpi, yDpi } = options;
	const pixels = Buffer.alloc(width * height * pages, 255);
	const fill = (page: number, x: number, y: number, w: number, h: number) => {
		const [left, top] = [Math.round(x), Math.round(y)];
		for (let row = top; row < top + Math.round(h); row++) {
			const start = (page * height + row) * width + left;
			pixels.fill(0, start, start + Math.round(w));
		}
	};
	for (let page = 0; page < pages; page++) {
		const barLength = Math.min(0.2 * (page + 1), 0.8) * width;
		fill(page, width * 0.1, height * 0.1, barLength, height * 0.1);
		fill(page, width * 0.5, height * 0.5, xDpi, yDpi);
	}
	const tiff = await sharp(pixels, {
		raw: { width, height: height * pages, channels: 1, pageHeight: height },
	})
		.toColourspace("b-w")
		.tiff({
			compression: "ccittfax4",
			bitdepth: 1,
			miniswhite: true,
			// sharp takes pixels per millimetre.
			xres: xDpi / 25.4,
			yres: yDpi / 25.4,
		})
		.toBuffer();
	return new Uint8Array(tiff);
}

/**
 * `tiff` rewritten by libtiff's tiffcp with `options` (e.g. ["-c", "g3:1d"]);
 * `pages` picks frames by index, all when absent.
 */
export async function tiffcp(tiff: Uint8Array, options: string[], pages?: number[]): Promise<Uint8Array> {
	const dir = await mkdtemp(join(tmpdir(), "testfax-tiffcp-"));
	try {
		const [input, output] = [join(dir, "in.tif"), join(dir, "out.tif")];
		await Bun.write(input, tiff);
		const source = pages === undefined ? input : [input, ...pages].join(",");
		const child = Bun.spawn(["tiffcp", ...options, source, output], { stderr: "pipe" });
		const stderr = await new Response(child.stderr).text();
		if ((await child.exited) !== 0) throw new Error(`tiffcp failed: ${stderr}`);
		return await Bun.file(output).bytes();
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

/** A copy of a little-endian TIFF with tag `tag` (a SHORT) of every frame set to `value`. */
export function withTiffTag(tiff: Uint8Array, tag: number, value: number): Uint8Array {
	const copy = tiff.slice();
	const view = new DataView(copy.buffer);
	for (let offset = view.getUint32(4, true); offset !== 0; ) {
		const count = view.getUint16(offset, true);
		for (let at = offset + 2; at < offset + 2 + count * 12; at += 12) {
			if (view.getUint16(at, true) === tag) view.setUint16(at + 8, value, true);
		}
		offset = view.getUint32(offset + 2 + count * 12, true);
	}
	return copy;
}

/** PDF with one page per size, each saying which page it is. */
export async function textPdf(sizes: [number, number][]): Promise<Uint8Array> {
	const pdf = await PDFDocument.create();
	const font = await pdf.embedFont(StandardFonts.Helvetica);
	for (const [index, size] of sizes.entries()) {
		const page = pdf.addPage(size);
		page.drawText(`Test fax, page ${index + 1}`, {
			x: 50,
			y: size[1] - 100,
			size: 24,
			font,
		});
	}
	return pdf.save();
}

/**
 * One-page PDF whose content stream inflates to `megabytes` of spaces: a
 * decompression bomb for whoever loads the page. Deflated a megabyte at a
 * time, so making it takes little memory.
 */
export async function contentBombPdf(megabytes: number): Promise<Uint8Array> {
	const deflate = createDeflate();
	const chunks: Buffer[] = [];
	deflate.on("data", (chunk: Buffer) => chunks.push(chunk));
	const spaces = Buffer.alloc(1024 * 1024, " ");
	for (let i = 0; i < megabytes; i++) deflate.write(spaces);
	deflate.end();
	await once(deflate, "end");
	const pdf = await PDFDocument.create();
	const page = pdf.addPage(A4_POINTS);
	const contents = pdf.context.stream(Buffer.concat(chunks), { Filter: "FlateDecode" });
	page.node.set(PDFName.of("Contents"), pdf.context.register(contents));
	return pdf.save();
}

export type TiffEntry = { tag: number; type: 3 | 4; values: number[] };

// Where handMadeTiff leaves room for image data, before the directories.
const DATA_OFFSET = 8;
const DATA_LENGTH = 16;

/**
 * A classic little-endian TIFF built byte by byte, for directory chains no
 * encoder would write: `next` gives each directory's successor by index
 * (null ends the chain), so a chain can loop. All directories share the
 * same image data, which is not valid G4: 0000001 is G4's extension code,
 * which libtiff does not support.
 */
export function handMadeTiff(
	directories: TiffEntry[][],
	next: (index: number) => number | null = (index) => (index + 1 < directories.length ? index + 1 : null),
): Uint8Array {
	const sizes = directories.map((entries) => 2 + entries.length * 12 + 4);
	const start = DATA_OFFSET + DATA_LENGTH;
	const offsets = sizes.map((_, index) => start + sizes.slice(0, index).reduce((a, b) => a + b, 0));
	const bytes = new Uint8Array(start + sizes.reduce((a, b) => a + b, 0));
	const view = new DataView(bytes.buffer);
	bytes.set([0x49, 0x49, 0x2a, 0x00]);
	bytes.fill(0x02, DATA_OFFSET, DATA_OFFSET + DATA_LENGTH);
	view.setUint32(4, offsets[0] ?? 0, true);
	for (const [index, entries] of directories.entries()) {
		let at = offsets[index] ?? 0;
		view.setUint16(at, entries.length, true);
		at += 2;
		for (const { tag, type, values } of entries) {
			view.setUint16(at, tag, true);
			view.setUint16(at + 2, type, true);
			view.setUint32(at + 4, values.length, true);
			if (type === 3) view.setUint16(at + 8, values[0] ?? 0, true);
			else view.setUint32(at + 8, values[0] ?? 0, true);
			at += 12;
		}
		const successor = next(index);
		view.setUint32(at, successor === null ? 0 : (offsets[successor] ?? 0), true);
	}
	return bytes;
}

/** What a row of a Modified Huffman page holds: all white, or a 64-pixel black bar at the right or left edge. */
export type ModifiedHuffmanRow = "white" | "bar-right" | "bar-left";

// The T.4 code words of these rows (ITU-T T.4, tables 2 and 3), most
// significant bit first: a run is a make-up code for its multiple of 64 and
// a terminating code for the rest, and every row starts with a white run.
const ROW_CODES: Record<ModifiedHuffmanRow, string> = {
	// White 1728, white 0.
	white: "010011011" + "00110101",
	// White 1664, white 0; black 64, black 0.
	"bar-right": "011000" + "00110101" + "0000001111" + "0000110111",
	// White 0; black 64, black 0; white 1664, white 0.
	"bar-left": "00110101" + "0000001111" + "0000110111" + "011000" + "00110101",
};

/** The coded rows, `rowsPerStrip` to a strip, each row padded to a byte boundary. */
function modifiedHuffmanStrips(rows: ModifiedHuffmanRow[], rowsPerStrip: number): Uint8Array[] {
	const strips: Uint8Array[] = [];
	for (let first = 0; first < rows.length; first += rowsPerStrip) {
		const bytes = rows.slice(first, first + rowsPerStrip).flatMap((row) => {
			const bits = ROW_CODES[row].padEnd(Math.ceil(ROW_CODES[row].length / 8) * 8, "0");
			return Array.from({ length: bits.length / 8 }, (_, i) =>
				Number.parseInt(bits.slice(i * 8, i * 8 + 8), 2),
			);
		});
		strips.push(Uint8Array.from(bytes));
	}
	return strips;
}

/**
 * A 1728-pixel-wide page in TIFF compression 2 (CCITT Modified Huffman: T.4
 * one-dimensional codes without EOLs, every row starting on a byte
 * boundary), `rowsPerStrip` rows a strip, at 204 × 196 dpi. No libtiff tool
 * writes this compression, so the rows are coded here.
 */
export function modifiedHuffmanTiff(rows: ModifiedHuffmanRow[], rowsPerStrip: number): Uint8Array {
	const strips = modifiedHuffmanStrips(rows, rowsPerStrip);
	const entries: [number, 3 | 4 | 5, number[]][] = [
		[256, 4, [1728]],
		[257, 4, [rows.length]],
		[258, 3, [1]],
		[259, 3, [2]],
		[262, 3, [0]],
		[273, 4, []],
		[277, 3, [1]],
		[278, 4, [rowsPerStrip]],
		[279, 4, strips.map((strip) => strip.length)],
		[282, 5, [204, 1]],
		[283, 5, [196, 1]],
		[296, 3, [2]],
	];
	const directoryAt = 8;
	const valuesAt = directoryAt + 2 + entries.length * 12 + 4;
	const arrayBytes = (type: number, count: number) => (type === 5 ? 8 : 4) * (type === 5 ? 1 : count);
	let dataAt = valuesAt;
	for (const [, type, values] of entries) {
		const count = values.length || strips.length;
		if (type === 5 || count > 1) dataAt += arrayBytes(type, count);
	}
	const offsets = strips.map(
		(_, index) => dataAt + strips.slice(0, index).reduce((sum, strip) => sum + strip.length, 0),
	);
	const file = new Uint8Array(dataAt + strips.reduce((sum, strip) => sum + strip.length, 0));
	const view = new DataView(file.buffer);
	file.set([0x49, 0x49, 0x2a, 0x00]);
	view.setUint32(4, directoryAt, true);
	view.setUint16(directoryAt, entries.length, true);
	let next = valuesAt;
	for (const [index, [tag, type, given]] of entries.entries()) {
		const values = tag === 273 ? offsets : given;
		const entry = directoryAt + 2 + index * 12;
		const count = type === 5 ? 1 : values.length;
		view.setUint16(entry, tag, true);
		view.setUint16(entry + 2, type, true);
		view.setUint32(entry + 4, count, true);
		let at = entry + 8;
		if (type === 5 || count > 1) {
			view.setUint32(entry + 8, next, true);
			at = next;
			next += arrayBytes(type, count);
		}
		for (const [i, value] of values.entries()) {
			if (type === 3) view.setUint16(at + i * 2, value, true);
			else view.setUint32(at + i * 4, value, true);
		}
	}
	for (const [index, strip] of strips.entries()) file.set(strip, offsets[index] ?? 0);
	return file;
}

/** Directory entries of a 1-bit G4 page whose data is handMadeTiff's. */
export function bilevelEntries(width: number, height: number): TiffEntry[] {
	return [
		{ tag: 256, type: 4, values: [width] },
		{ tag: 257, type: 4, values: [height] },
		{ tag: 258, type: 3, values: [1] },
		{ tag: 259, type: 3, values: [4] },
		{ tag: 262, type: 3, values: [0] },
		{ tag: 273, type: 4, values: [DATA_OFFSET] },
		{ tag: 277, type: 3, values: [1] },
		{ tag: 278, type: 4, values: [height] },
		{ tag: 279, type: 4, values: [DATA_LENGTH] },
	];
}

// The padding string of the PDF standard security handler (ISO 32000-1, 7.6.3.3).
const PASSWORD_PADDING = Uint8Array.from([
	0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08, 0x2e, 0x2e,
	0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c, 0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
]);

/**
 * One-page PDF encrypted with the standard security handler, revision 2
 * (40-bit RC4), the simplest one every reader supports. pdf-lib cannot
 * encrypt, so it is written here. With an empty user password anybody may
 * open it; the owner password only guards permissions.
 */
export function encryptedPdf(userPassword: string, ownerPassword: string): Uint8Array {
	const id = Uint8Array.from({ length: 16 }, (_, i) => i * 7);
	const permissions = -44;
	const owner = rc4(md5(pad(ownerPassword)).subarray(0, 5), pad(userPassword));
	const key = md5(
		pad(userPassword),
		owner,
		Uint8Array.from([permissions, permissions >> 8, permissions >> 16, permissions >> 24]),
		id,
	).subarray(0, 5);
	const user = rc4(key, PASSWORD_PADDING);
	const objectKey = (number: number) =>
		md5(key, Uint8Array.from([number, number >> 8, number >> 16, 0, 0])).subarray(0, 10);
	const content = rc4(objectKey(4), latin1("BT /F1 24 Tf 72 720 Td (Secret fax) Tj ET"));
	const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
	const objects: Uint8Array[] = [
		latin1("<< /Type /Catalog /Pages 2 0 R >>"),
		latin1("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		latin1(
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R " +
				"/Resources << /Font << /F1 5 0 R >> >> >>",
		),
		concat(latin1(`<< /Length ${content.length} >>\nstream\n`), content, latin1("\nendstream")),
		latin1("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		latin1(`<< /Filter /Standard /V 1 /R 2 /O <${hex(owner)}> /U <${hex(user)}> /P ${permissions} >>`),
	];
	const parts: Uint8Array[] = [latin1("%PDF-1.4\n")];
	const offsets: number[] = [];
	let length = parts[0]?.length ?? 0;
	for (const [index, object] of objects.entries()) {
		offsets.push(length);
		const part = concat(latin1(`${index + 1} 0 obj\n`), object, latin1("\nendobj\n"));
		parts.push(part);
		length += part.length;
	}
	const xref = [
		"xref",
		`0 ${objects.length + 1}`,
		"0000000000 65535 f ",
		...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n `),
		"trailer",
		`<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 6 0 R /ID [<${hex(id)}> <${hex(id)}>] >>`,
		"startxref",
		String(length),
		"%%EOF",
		"",
	].join("\n");
	parts.push(latin1(xref));
	return concat(...parts);
}

function pad(password: string): Uint8Array {
	const bytes = latin1(password).subarray(0, 32);
	return concat(bytes, PASSWORD_PADDING.subarray(0, 32 - bytes.length));
}

function md5(...parts: Uint8Array[]): Uint8Array {
	return new Uint8Array(
		createHash("md5")
			.update(concat(...parts))
			.digest(),
	);
}

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
	const s = Uint8Array.from({ length: 256 }, (_, i) => i);
	let j = 0;
	for (let i = 0; i < 256; i++) {
		j = (j + (s[i] ?? 0) + (key[i % key.length] ?? 0)) & 0xff;
		[s[i], s[j]] = [s[j] ?? 0, s[i] ?? 0];
	}
	const out = new Uint8Array(data.length);
	for (let n = 0, i = 0, k = 0; n < data.length; n++) {
		i = (i + 1) & 0xff;
		k = (k + (s[i] ?? 0)) & 0xff;
		[s[i], s[k]] = [s[k] ?? 0, s[i] ?? 0];
		out[n] = (data[n] ?? 0) ^ (s[((s[i] ?? 0) + (s[k] ?? 0)) & 0xff] ?? 0);
	}
	return out;
}

export function latin1(text: string): Uint8Array {
	return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
	let at = 0;
	for (const part of parts) {
		out.set(part, at);
		at += part.length;
	}
	return out;
}
