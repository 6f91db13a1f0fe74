// Measures `fax ingest`, the real command from start to exit, on generated
// inputs, each beside a yardstick run in the same go: the C tools of libtiff
// and poppler doing the same job (tiff2pdf makes the PDF of a TIFF, pdfinfo
// counts a PDF's pages, pdftoppm renders the 300-px JPEG of page 1). Both
// run as processes of their own, under GNU time, whose peak RSS is the
// kernel's. While the command runs, its database is polled: "listed" is the
// time from spawning it to its fax being in the database, so in the API.
// Each measurement is run BENCH_RUNS times (default 3): the median times and
// the highest peak RSS are shown. Hostile inputs must be refused with their
// one-line reason, which is printed; the C tools, which have no limits, are
// stopped after YARDSTICK_LIMIT_SECONDS on them (">" before the time).
// Inputs are generated into the temp directory (the fax text needs a system
// font).
//
//   bun bench/ingest.ts
//
// Needs /usr/bin/time (Debian: time), tiff2pdf (libtiff-tools) and
// pdfinfo/pdftoppm (poppler-utils).
import { Database } from "bun:sqlite";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeflate } from "node:zlib";
import { PDFDocument, PDFName } from "pdf-lib";
import sharp from "sharp";
import { runCommand } from "../testkit/processes.ts";

const ROOT = join(import.meta.dir, "..");
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FAX_WIDTH = 1728;
const FAX_HEIGHT = 2200;
const FAX_TIFF = {
	compression: "ccittfax4",
	bitdepth: 1,
	miniswhite: true,
	xres: 204 / 25.4,
	yres: 196 / 25.4,
	// One strip per page, as fax receivers write it.
	tileHeight: FAX_HEIGHT,
} as const;
// Near the 40 MiB input limit, as is the email carrying one (about 55 MiB of
// the 60 MiB an email may have): the costliest inputs.
const SCAN_PDF_BYTES = 40_500_000;
const EMAILED_SCAN_PDF_BYTES = 40_500_000;
const BOMB_BYTES = 2 * 1024 ** 3;
const JUNK_ATTACHMENTS = 50;
const JUNK_BYTES = 1024 * 1024;
// The C tools have no limits: on a decompression bomb they run for minutes.
const YARDSTICK_LIMIT_SECONDS = 30;
// Base64 makes 50 attachments of 1 MiB more than the 60 MiB email limit, which
// refuses them unread; these are walked through.
const JUNK_BYTES_UNDER_LIMIT = 580 * 1024;

// What `fax ingest` says on standard error of an input it records as not processable.
const REFUSAL_LINE = /^ingest: [^\n]+: not processable: [^\n]+$/;

const TARGETS = {
	longFaxSeconds: 1,
	longFaxRssMb: 150,
	longFaxRatio: 10,
	shortFaxSeconds: 0.3,
	rssMb: 256,
};

type Input = {
	name: string;
	file: string;
	source: "phone" | "email";
	/** What the yardstick does with the input; none for an email. */
	yardstick: "tiff" | "pdf" | null;
};

type Run = { ms: number; peakRssMb: number; stopped?: boolean };
type ServiceRun = Run & { listedMs: number | null };
type Row = {
	input: Input;
	bytes: number;
	/** Pages of the stored PDF, or the line the command refused the input with. */
	outcome: { pages: number } | { refused: string };
	service: ServiceRun;
	yardstick: Run | null;
};

const dir = await mkdtemp(join(tmpdir(), "testfax-bench-ingest-"));
try {
	const rows: Row[] = [];
	console.log(
		"input                           size MB  outcome     fax ingest ms  listed ms  yardstick ms  ratio  peak RSS MB (yardstick)",
	);
	for await (const input of inputs()) {
		const row = await measureInput(input);
		rows.push(row);
		console.log(formatRow(row));
	}
	console.log();
	for (const { input, outcome } of rows) {
		if ("refused" in outcome) console.log(`${input.name}: ${outcome.refused}`);
	}
	console.log();
	for (const line of targetLines(rows)) console.log(line);
} finally {
	await rm(dir, { recursive: true, force: true });
}

async function* inputs(): AsyncGenerator<Input> {
	yield await input("fax-1-page.tif", "phone", "tiff", await faxTiff(1));
	yield await input("fax-3-pages.tif", "phone", "tiff", await faxTiff(3));
	yield await input("fax-201-pages.tif", "phone", "tiff", await faxTiff(201));
	yield await input(
		"fax-g3-2d-fine.tif",
		"phone",
		"tiff",
		await Bun.file(join(ROOT, "fixtures/ingest/fax-g3-2d-fine.tif")).bytes(),
	);
	yield await input("scan-40mb.pdf", "email", "pdf", await scannedPdf(SCAN_PDF_BYTES));
	yield await input(
		"scan-40mb-in-email.eml",
		"email",
		null,
		emailWith(await scannedPdf(EMAILED_SCAN_PDF_BYTES)),
	);
	yield await input("hostile-flate-bomb.pdf", "email", "pdf", await flateBombPdf());
	yield await input("hostile-50-junk-attachments.eml", "email", null, junkEmail(JUNK_BYTES));
	yield await input("hostile-50-junk-580k.eml", "email", null, junkEmail(JUNK_BYTES_UNDER_LIMIT));
	yield await input("hostile-tiff-huge-page.tif", "phone", "tiff", hugePageTiff());
	yield await input("hostile-tiff-huge-strips.tif", "phone", "tiff", hugeStripsTiff());
}

async function input(
	name: string,
	source: Input["source"],
	yardstick: Input["yardstick"],
	bytes: Uint8Array,
): Promise<Input> {
	const file = join(dir, name);
	await Bun.write(file, bytes);
	return { name, file, source, yardstick };
}

async function measureInput(input: Input): Promise<Row> {
	const env = {
		PATH: process.env.PATH ?? "",
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
	};
	const serviceRuns: ServiceRun[] = [];
	const yardstickRuns: Run[] = [];
	let outcome: Row["outcome"] = { refused: "" };
	for (let run = 0; run < RUNS; run++) {
		const listed = watchListing(env.DATABASE_PATH);
		const service = await timed(
			[process.execPath, "bin/fax.ts", "ingest", input.file, "--source", input.source, "--json"],
			env,
		);
		const listedMs = await listed.stop();
		if (service.code !== 0 && service.code !== 3) {
			throw new Error(`fax ingest ${input.name} exited ${service.code}: ${service.stderr}`);
		}
		outcome =
			service.code === 0
				? { pages: JSON.parse(service.stdout).page_count }
				: { refused: service.stderr.trim() };
		serviceRuns.push({ ...service, listedMs: service.code === 0 ? listedMs : null });
		const yardstick = await runYardstick(input);
		if (yardstick) yardstickRuns.push(yardstick);
	}
	return {
		input,
		bytes: Bun.file(input.file).size,
		outcome,
		service: {
			...summary(serviceRuns),
			listedMs: median(serviceRuns.flatMap((run) => (run.listedMs === null ? [] : [run.listedMs]))),
		},
		yardstick: yardstickRuns.length ? summary(yardstickRuns) : null,
	};
}

/**
 * Polls the database for a fax newer than those in it now, from this moment
 * (just before the command is spawned); stop() gives the milliseconds until
 * it was seen, or null.
 */
function watchListing(databasePath: string): { stop(): Promise<number | null> } {
	const start = performance.now();
	// A connection of its own each time: one kept open can go on seeing the
	// database as it was when it was opened.
	const newest = () => {
		try {
			using database = new Database(databasePath, { readonly: true });
			return database.query<{ id: number | null }, []>("SELECT max(id) AS id FROM faxes").get()?.id ?? 0;
		} catch {
			return 0;
		}
	};
	const before = newest();
	let seenMs: number | null = null;
	let stopped = false;
	const polling = (async () => {
		while (!stopped && seenMs === null) {
			if (newest() > before) seenMs = performance.now() - start;
			await Bun.sleep(1);
		}
	})();
	return {
		async stop() {
			stopped = true;
			await polling;
			return seenMs;
		},
	};
}

/** The same job done by the C tools: the PDF to store (for a TIFF) and the thumbnail of page 1. */
async function runYardstick(input: Input): Promise<Run | null> {
	if (input.yardstick === null) return null;
	const pdf = input.yardstick === "tiff" ? join(dir, "yardstick.pdf") : input.file;
	// Where tiff2pdf refuses a file, pdftoppm must not find the last one's PDF.
	if (input.yardstick === "tiff") await rm(pdf, { force: true });
	const steps = [
		input.yardstick === "tiff" ? ["tiff2pdf", "-o", pdf, input.file] : ["pdfinfo", pdf],
		[
			"pdftoppm",
			"-f",
			"1",
			"-l",
			"1",
			"-scale-to-x",
			"300",
			"-scale-to-y",
			"-1",
			"-jpeg",
			pdf,
			join(dir, "thumb"),
		],
	];
	const runs: Run[] = [];
	for (const step of steps) {
		const run = await timed(["timeout", "-s", "KILL", String(YARDSTICK_LIMIT_SECONDS), ...step], {
			PATH: process.env.PATH ?? "",
		});
		runs.push({ ...run, stopped: run.code !== 0 && run.ms >= YARDSTICK_LIMIT_SECONDS * 1000 });
	}
	return {
		ms: runs.reduce((sum, run) => sum + run.ms, 0),
		peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
		stopped: runs.some((run) => run.stopped),
	};
}

async function timed(command: string[], env: Record<string, string>) {
	const start = performance.now();
	const { code, stdout, stderr } = await runCommand(["/usr/bin/time", "-f", "%M", ...command], {
		cwd: ROOT,
		env,
	});
	const ms = performance.now() - start;
	// GNU time appends the peak RSS, after a line on a non-zero exit status.
	const lines = stderr.trimEnd().split("\n");
	const kilobytes = Number(lines.pop());
	if (lines.at(-1)?.startsWith("Command exited with non-zero status")) lines.pop();
	return { ms, peakRssMb: (kilobytes * 1024) / 1e6, code, stdout, stderr: lines.join("\n") };
}

function summary(runs: Run[]): Run {
	return {
		ms: median(runs.map((run) => run.ms)) ?? 0,
		peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
		stopped: runs.some((run) => run.stopped),
	};
}

function median(values: number[]): number | null {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? null;
}

function formatRow({ input, bytes, outcome, service, yardstick }: Row): string {
	return [
		input.name.padEnd(32),
		(bytes / 1e6).toFixed(1).padStart(7),
		` ${("pages" in outcome ? `${outcome.pages} pages` : "refused").padEnd(9)}`,
		service.ms.toFixed(0).padStart(15),
		(service.listedMs === null ? "-" : service.listedMs.toFixed(0)).padStart(10),
		(yardstick ? `${yardstick.stopped ? ">" : ""}${yardstick.ms.toFixed(0)}` : "-").padStart(13),
		(yardstick ? (service.ms / yardstick.ms).toFixed(1) : "-").padStart(6),
		`${service.peakRssMb.toFixed(0).padStart(12)} (${yardstick ? yardstick.peakRssMb.toFixed(0) : "-"})`,
	].join(" ");
}

function targetLines(rows: Row[]): string[] {
	const row = (name: string) => rows.find((candidate) => candidate.input.name === name);
	const check = (ok: boolean) => (ok ? "met" : "MISSED");
	const lines: string[] = [];
	const long = row("fax-201-pages.tif");
	if (long?.yardstick) {
		const ratio = long.service.ms / long.yardstick.ms;
		lines.push(
			`201-page fax: ${(long.service.ms / 1000).toFixed(2)} s (< ${TARGETS.longFaxSeconds} s: ${check(long.service.ms < TARGETS.longFaxSeconds * 1000)}), ` +
				`${long.service.peakRssMb.toFixed(0)} MB (< ${TARGETS.longFaxRssMb} MB: ${check(long.service.peakRssMb < TARGETS.longFaxRssMb)}), ` +
				`${ratio.toFixed(1)}x the yardstick (<= ${TARGETS.longFaxRatio}x: ${check(ratio <= TARGETS.longFaxRatio)})`,
		);
	}
	const listedMs = row("fax-3-pages.tif")?.service.listedMs;
	if (listedMs !== undefined && listedMs !== null) {
		lines.push(
			`3-page fax listed ${(listedMs / 1000).toFixed(2)} s after the command started ` +
				`(< ${TARGETS.shortFaxSeconds} s: ${check(listedMs < TARGETS.shortFaxSeconds * 1000)})`,
		);
	}
	const heaviest = rows.reduce((a, b) => (b.service.peakRssMb > a.service.peakRssMb ? b : a));
	lines.push(
		`highest peak RSS: ${heaviest.service.peakRssMb.toFixed(0)} MB, ${heaviest.input.name} ` +
			`(< ${TARGETS.rssMb} MB for every input: ${check(heaviest.service.peakRssMb < TARGETS.rssMb)})`,
	);
	const asExpected = rows.filter(({ input, outcome }) =>
		input.name.startsWith("hostile-")
			? "refused" in outcome && REFUSAL_LINE.test(outcome.refused)
			: "pages" in outcome,
	);
	lines.push(
		`hostile inputs refused with a one-line reason, the others processed: ${check(asExpected.length === rows.length)}`,
	);
	return lines;
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

/** A4 colour scans at 200 dpi, one JPEG of about 1 MB per page, up to `bytes`. */
async function scannedPdf(bytes: number): Promise<Uint8Array> {
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
	for (let size = 0; size + scan.length < bytes; size += scan.length) {
		const page = pdf.addPage([595.28, 841.89]);
		page.drawImage(await pdf.embedJpg(scan), { width: 595.28, height: 841.89 });
	}
	return pdf.save();
}

/**
 * One A4 page whose content stream inflates to BOMB_BYTES of spaces, about
 * 2 MB deflated. Deflated a megabyte at a time, so making it takes little memory.
 */
async function flateBombPdf(): Promise<Uint8Array> {
	const deflate = createDeflate({ level: 9 });
	const chunks: Buffer[] = [];
	deflate.on("data", (chunk: Buffer) => chunks.push(chunk));
	const spaces = Buffer.alloc(1024 * 1024, " ");
	for (let written = 0; written < BOMB_BYTES; written += spaces.length) {
		if (!deflate.write(spaces)) await once(deflate, "drain");
	}
	deflate.end();
	await once(deflate, "end");
	const pdf = await PDFDocument.create();
	const page = pdf.addPage([595.28, 841.89]);
	const contents = pdf.context.stream(Buffer.concat(chunks), { Filter: "FlateDecode" });
	page.node.set(PDFName.of("Contents"), pdf.context.register(contents));
	return pdf.save();
}

/** A scan-to-email message: a line of text and the PDF, base64. */
function emailWith(pdf: Uint8Array): Uint8Array {
	return Buffer.from(
		[
			"From: Office Scanner <scanner@example.org>",
			"Date: Mon, 23 Nov 2026 07:00:00 -0500",
			"Subject: Scan",
			"MIME-Version: 1.0",
			'Content-Type: multipart/mixed; boundary="scan"',
			"",
			"--scan",
			"Content-Type: text/plain",
			"",
			"Scanned document attached.",
			"--scan",
			'Content-Type: application/pdf; name="scan.pdf"',
			"Content-Transfer-Encoding: base64",
			"",
			Buffer.from(pdf).toString("base64").replace(/.{76}/g, "$&\r\n"),
			"--scan--",
			"",
		].join("\r\n"),
	);
}

/** An email with JUNK_ATTACHMENTS attachments of `bytes` random bytes each, none of them a fax. */
function junkEmail(bytes: number): Uint8Array {
	const parts = Array.from({ length: JUNK_ATTACHMENTS }, (_, index) => {
		const junk = new Uint8Array(bytes);
		crypto.getRandomValues(junk.subarray(0, 65_536));
		for (let at = 65_536; at < junk.length; at += 65_536) junk.copyWithin(at, 0, 65_536);
		return [
			"--junk",
			"Content-Type: application/octet-stream",
			`Content-Disposition: attachment; filename="junk-${index}.bin"`,
			"Content-Transfer-Encoding: base64",
			"",
			Buffer.from(junk).toString("base64").replace(/.{76}/g, "$&\r\n"),
		].join("\r\n");
	});
	return Buffer.from(
		[
			"From: Junk <junk@example.org>",
			"Date: Mon, 23 Nov 2026 07:00:00 -0500",
			"Subject: many attachments",
			"MIME-Version: 1.0",
			'Content-Type: multipart/mixed; boundary="junk"',
			"",
			...parts,
			"--junk--",
			"",
		].join("\r\n"),
	);
}

/**
 * A little-endian TIFF of one page: its directory (tag, type 3 or 4, values;
 * values longer than 4 bytes go after the directory) and then `data`.
 */
function rawTiff(tags: [number, 3 | 4, number[]][], data: Uint8Array): Uint8Array {
	const size = (type: 3 | 4) => (type === 3 ? 2 : 4);
	const directoryEnd = 8 + 2 + tags.length * 12 + 4;
	const outOfLine = tags.reduce(
		(sum, [, type, values]) => sum + (values.length * size(type) > 4 ? values.length * size(type) : 0),
		0,
	);
	const file = new Uint8Array(directoryEnd + outOfLine + data.length);
	const view = new DataView(file.buffer);
	const put = (at: number, type: 3 | 4, value: number) =>
		type === 3 ? view.setUint16(at, value, true) : view.setUint32(at, value, true);
	view.setUint16(0, 0x4949);
	view.setUint16(2, 42, true);
	view.setUint32(4, 8, true);
	view.setUint16(8, tags.length, true);
	let next = directoryEnd;
	for (const [index, [tag, type, values]] of tags.entries()) {
		const entry = 10 + index * 12;
		view.setUint16(entry, tag, true);
		view.setUint16(entry + 2, type, true);
		view.setUint32(entry + 4, values.length, true);
		let at = entry + 8;
		if (values.length * size(type) > 4) {
			view.setUint32(entry + 8, next, true);
			at = next;
			next += values.length * size(type);
		}
		for (const [i, value] of values.entries()) put(at + i * size(type), type, value);
	}
	file.set(data, next);
	return file;
}

/** A page of 1,000,000 × 1,000,000 pixels declared in a few bytes: a decompression bomb. */
function hugePageTiff(): Uint8Array {
	const data = new Uint8Array(64);
	return rawTiff(
		[
			[256, 4, [1_000_000]],
			[257, 4, [1_000_000]],
			[258, 3, [1]],
			[259, 3, [4]],
			[262, 3, [0]],
			[273, 4, [0]],
			[278, 4, [1_000_000]],
			[279, 4, [data.length]],
		],
		data,
	);
}

/** A fax page cut into a strip per row, each strip claiming a gigabyte the file does not have. */
function hugeStripsTiff(): Uint8Array {
	const rows = 2200;
	return rawTiff(
		[
			[256, 4, [FAX_WIDTH]],
			[257, 4, [rows]],
			[258, 3, [1]],
			[259, 3, [4]],
			[262, 3, [0]],
			[273, 4, Array.from({ length: rows }, () => 0)],
			[278, 4, [1]],
			[279, 4, Array.from({ length: rows }, () => 2 ** 30)],
		],
		new Uint8Array(64),
	);
}
