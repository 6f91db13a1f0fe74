// Reads TIFF image file directories (one per page) without decoding pixels,
// so pages can be checked, and CCITT strips copied, before anything is
// decoded. Values are read on demand: a hostile file may declare huge tag
// arrays we never need.

export const TIFF_TAG = {
	imageWidth: 256,
	imageLength: 257,
	bitsPerSample: 258,
	compression: 259,
	photometric: 262,
	fillOrder: 266,
	stripOffsets: 273,
	samplesPerPixel: 277,
	rowsPerStrip: 278,
	stripByteCounts: 279,
	xResolution: 282,
	yResolution: 283,
	t4Options: 292,
	t6Options: 293,
	resolutionUnit: 296,
	tileWidth: 322,
	imageDescription: 270,
	dateTime: 306,
	// HylaFAX's private tags on a received fax (libtiff's tiff.h names them).
	faxRecvParams: 34908,
	faxSubAddress: 34909,
	faxRecvTime: 34910,
	faxDcs: 34911,
} as const;

type Entry = { type: number; count: number; valueOffset: number };

const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8 };

export class TiffDirectory {
	constructor(
		private readonly view: DataView,
		private readonly littleEndian: boolean,
		private readonly entries: Map<number, Entry>,
		/** Where the offset of the next directory is written (0 after the last). */
		readonly nextOffsetAt: number,
	) {}

	/** How many values the tag has, as declared; undefined when absent. */
	count(tag: number): number | undefined {
		return this.entries.get(tag)?.count;
	}

	/**
	 * The tag's first `limit` values, or undefined when absent, of an
	 * unexpected type, or out of the file.
	 */
	values(tag: number, limit: number): number[] | undefined {
		const entry = this.entries.get(tag);
		const start = entry && this.start(entry);
		if (entry === undefined || start === undefined) return undefined;
		return Array.from({ length: Math.min(entry.count, limit) }, (_, i) =>
			this.read(entry.type, start + i * (TYPE_SIZE[entry.type] ?? 0)),
		);
	}

	first(tag: number): number | undefined {
		const entry = this.entries.get(tag);
		const start = entry && this.start(entry);
		if (entry === undefined || start === undefined || entry.count === 0) {
			return undefined;
		}
		return this.read(entry.type, start);
	}

	/** An ASCII tag's text, at most `limit` bytes of it, up to its first NUL; undefined when absent. */
	text(tag: number, limit: number): string | undefined {
		const entry = this.entries.get(tag);
		const start = entry?.type === 2 ? this.start(entry) : undefined;
		if (entry === undefined || start === undefined) return undefined;
		const bytes = new Uint8Array(
			this.view.buffer,
			this.view.byteOffset + start,
			Math.min(entry.count, limit),
		);
		const nul = bytes.indexOf(0);
		return new TextDecoder("latin1").decode(nul < 0 ? bytes : bytes.subarray(0, nul));
	}

	private start(entry: Entry): number | undefined {
		const size = TYPE_SIZE[entry.type];
		if (size === undefined) return undefined;
		const length = size * entry.count;
		const start = length <= 4 ? entry.valueOffset : this.u32(entry.valueOffset);
		return start + length <= this.view.byteLength ? start : undefined;
	}

	private read(type: number, at: number): number {
		if (type === 1) return this.view.getUint8(at);
		if (type === 3) return this.view.getUint16(at, this.littleEndian);
		if (type === 4) return this.u32(at);
		return this.u32(at) / this.u32(at + 4);
	}

	private u32(at: number): number {
		return this.view.getUint32(at, this.littleEndian);
	}
}

/**
 * The directories of a classic (not Big) TIFF, in page order, or the reason
 * the chain cannot be read: "corrupt" also covers a chain that loops.
 */
export function readTiffDirectories(
	bytes: Uint8Array,
	maxDirectories: number,
): TiffDirectory[] | "corrupt" | "too-many" {
	if (bytes.length < 8) return "corrupt";
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const littleEndian = bytes[0] === 0x49;
	const directories: TiffDirectory[] = [];
	const visited = new Set<number>();
	let offset = view.getUint32(4, littleEndian);
	while (offset !== 0) {
		if (visited.has(offset) || offset + 2 > bytes.length) return "corrupt";
		if (directories.length === maxDirectories) return "too-many";
		visited.add(offset);
		const count = view.getUint16(offset, littleEndian);
		const end = offset + 2 + count * 12;
		if (end + 4 > bytes.length) return "corrupt";
		const entries = new Map<number, Entry>();
		for (let at = offset + 2; at < end; at += 12) {
			entries.set(view.getUint16(at, littleEndian), {
				type: view.getUint16(at + 2, littleEndian),
				count: view.getUint32(at + 4, littleEndian),
				valueOffset: at + 8,
			});
		}
		directories.push(new TiffDirectory(view, littleEndian, entries, end));
		offset = view.getUint32(end, littleEndian);
	}
	return directories;
}

/**
 * The directories that are pages: all but the trailing ones of 0 rows after
 * a page. A call cut during a page leaves one (HylaFAX's "RECV keeping
 * unconfirmed page" of a page whose data never came); the pages before it
 * are the fax.
 */
export function pageDirectories(directories: TiffDirectory[]): TiffDirectory[] {
	let pages = directories.length;
	while (pages > 1 && directories[pages - 1]?.first(TIFF_TAG.imageLength) === 0) pages--;
	return directories.slice(0, pages);
}
