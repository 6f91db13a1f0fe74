// Measures processDocument on a 200-page fine-mode
// G4 fax and a ~50 MB scanned PDF, with a one-page fax as the baseline.
// Inputs are generated into the temp directory (the fax text needs a system
// font); each is processed in a Bun process of its own, so the peak RSS
// reported (including Bun, sharp and PDFium themselves) is that input's alone.
//
//   bun bench/ingest.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { processDocument } from "../lib/document/index.ts";

const FAX_WIDTH = 1728;
const FAX_HEIGHT = 2200;
const FAX_PAGES = 200;
const PDF_BYTES = 50_000_000;
const FAX_TIFF = {
	compression: "ccittfax4",
	bitdepth: 1,
	miniswhite: true,
	xres: 204 / 25.4,
	yres: 196 / 25.4,
} as const;

type Measurement = {
	ms: number;
	peakRssBytes: number;
	pageCount: number | null;
	pdfBytes: number | null;
	reason: string | null;
};

if (process.argv[2] === "--one") {
	console.log(JSON.stringify(await measure(process.argv[3] ?? "")));
} else {
	const dir = await mkdtemp(join(tmpdir(), "testfax-bench-ingest-"));
	const inputs: [string, Uint8Array][] = [
		["fax-1-page.tif", await faxTiff(1)],
		[`fax-${FAX_PAGES}-pages.tif`, await faxTiff(FAX_PAGES)],
		["scan-50mb.pdf", await scannedPdf()],
	];
	console.log("input                 size MB  pages  PDF MB   time ms  peak RSS MB");
	try {
		await measureAll(dir, inputs);
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

async function measureAll(dir: string, inputs: [string, Uint8Array][]): Promise<void> {
	for (const [name, bytes] of inputs) {
		const file = join(dir, name);
		await Bun.write(file, bytes);
		const child = Bun.spawn([process.execPath, import.meta.path, "--one", file]);
		const result: Measurement = JSON.parse(await new Response(child.stdout).text());
		await child.exited;
		console.log(
			[
				name.padEnd(20),
				mb(bytes.length).padStart(8),
				String(result.pageCount ?? result.reason).padStart(6),
				mb(result.pdfBytes ?? 0).padStart(7),
				String(result.ms).padStart(9),
				(result.peakRssBytes / 1e6).toFixed(0).padStart(12),
			].join(" "),
		);
	}
}

async function measure(file: string): Promise<Measurement> {
	const bytes = new Uint8Array(await Bun.file(file).arrayBuffer());
	const start = performance.now();
	const result = await processDocument(bytes);
	const ms = Math.round(performance.now() - start);
	const peakRssBytes = await peakRss();
	return result.ok
		? { ms, peakRssBytes, pageCount: result.pageCount, pdfBytes: result.pdf.length, reason: null }
		: { ms, peakRssBytes, pageCount: null, pdfBytes: null, reason: result.reason };
}

// Not ru_maxrss: Linux carries the parent's RSS at fork time over into the
// child's, and the parent holds all generated inputs.
async function peakRss(): Promise<number> {
	const status = await Bun.file("/proc/self/status")
		.text()
		.catch(() => "");
	const kilobytes = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
	return Number(kilobytes ?? process.resourceUsage().maxRSS) * 1024;
}

/** Pages of dense text as a fax receiver writes them: G4, 204 × 196 dpi. */
async function faxTiff(pages: number): Promise<Uint8Array> {
	const frames: Buffer[] = [];
	for (let page = 0; page < pages; page++) frames.push(await faxPage(page));
	if (frames.length === 1) return new Uint8Array(frames[0] ?? []);
	// Joined lazily, so the pages are never all decoded at once.
	const tiff = await sharp(frames, { join: { animated: true } })
		.extractChannel(0)
		.toColourspace("b-w")
		.tiff(FAX_TIFF)
		.toBuffer();
	return new Uint8Array(tiff);
}

async function faxPage(page: number): Promise<Buffer> {
	const words =
		"fax invoice payment order delivery please confirm receipt of the attached documents regarding our meeting schedule shipment quantity total amount due within thirty days reference number customer account".split(
			" ",
		);
	let seed = page * 7919 + 1;
	const random = () => {
		seed = (seed * 1103515245 + 12345) & 0x7fffffff;
		return seed / 0x7fffffff;
	};
	const lines = Array.from({ length: 55 }, () =>
		Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(" "),
	);
	const text = await sharp({
		text: { text: `Page ${page + 1}\n\n${lines.join("\n")}`, font: "sans", dpi: 150, width: FAX_WIDTH - 300 },
	})
		.extractChannel(0)
		.negate()
		.toBuffer({ resolveWithObject: true });
	const { width, height } = text.info;
	return sharp(text.data, { raw: { width, height, channels: 1 } })
		.extend({
			top: 150,
			left: 150,
			right: FAX_WIDTH - 150 - width,
			bottom: FAX_HEIGHT - 150 - height,
			background: "#ffffff",
		})
		.toColourspace("b-w")
		.tiff(FAX_TIFF)
		.toBuffer();
}

/** A4 colour scans at 200 dpi, one JPEG of about 1 MB per page, up to PDF_BYTES. */
async function scannedPdf(): Promise<Uint8Array> {
	const scan = await sharp({
		create: {
			width: 1654,
			height: 2339,
			channels: 3,
			background: "#f4f1ea",
			noise: { type: "gaussian", mean: 200, sigma: 20 },
		},
	})
		.jpeg({ quality: 80 })
		.toBuffer();
	const pdf = await PDFDocument.create();
	for (let size = 0; size < PDF_BYTES; size += scan.length) {
		const page = pdf.addPage([595.28, 841.89]);
		page.drawImage(await pdf.embedJpg(scan), { width: 595.28, height: 841.89 });
	}
	return pdf.save();
}

function mb(bytes: number): string {
	return (bytes / 1e6).toFixed(1);
}
