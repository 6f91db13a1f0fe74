// The standard paper sizes a page is named by: a scan's (scan-facts.ts) and a
// fax page's (lib/pages/report-part.ts), each within its own tolerance.

// ISO 216 A and B series, JIS B (Japanese copiers' "B5"), and the North
// American sizes, in mm, portrait.
export const PAPER_SIZES: readonly [name: string, widthMm: number, heightMm: number][] = [
	["A3", 297, 420],
	["A4", 210, 297],
	["A5", 148, 210],
	["A6", 105, 148],
	["B4", 250, 353],
	["B5", 176, 250],
	["JIS B4", 257, 364],
	["JIS B5", 182, 257],
	["US Letter", 215.9, 279.4],
	["US Legal", 215.9, 355.6],
	["Tabloid", 279.4, 431.8],
	["Executive", 184.15, 266.7],
	["Statement", 139.7, 215.9],
];
// Scanners round a page to whole pixels and PDF writers to a few decimals;
// the closest two standard sizes are further apart than this.
const PAPER_TOLERANCE_MM = 2;

/** The standard paper size of a page, "landscape" when it lies wide; null when none is within ±2 mm. */
export function paperName(widthMm: number, heightMm: number): string | null {
	const near = (a: number, b: number) => Math.abs(a - b) <= PAPER_TOLERANCE_MM;
	for (const [name, short, long] of PAPER_SIZES) {
		if (near(widthMm, short) && near(heightMm, long)) return name;
		if (near(widthMm, long) && near(heightMm, short)) return `${name} landscape`;
	}
	return null;
}
