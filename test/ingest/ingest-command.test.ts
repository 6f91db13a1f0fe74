import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { ago, agoIn } from "../../testkit/fixtures.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { faxTiff, textPdf } from "../document/make-files.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/ingest");
const A4: [number, number] = [595.28, 841.89];
let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { CDN_BASE_URL: "http://127.0.0.1:1/cdn" } });
});
afterAll(() => server.stop());

async function writeInput(name: string, bytes: Uint8Array | string): Promise<string> {
	const path = join(server.dir, name);
	await Bun.write(path, bytes);
	return path;
}

type ApiFax = Record<string, unknown> & { slug: string };

async function apiView(slug: string): Promise<ApiFax> {
	const response = await server.request(`/api/faxes/${slug}`);
	expect(response.status).toBe(200);
	return (await response.json()) as ApiFax;
}

/** The stored files of a fax, read through the server's own /cdn route. */
async function storedFiles(slug: string) {
	const pdf = await server.request(`/cdn/faxes/${slug}.pdf`);
	const thumbnail = await server.request(`/cdn/faxes/${slug}-thumb.jpg`);
	return {
		pdfStatus: pdf.status,
		pdfType: pdf.headers.get("content-type"),
		pdf: new Uint8Array(await pdf.arrayBuffer()),
		thumbnailStatus: thumbnail.status,
		thumbnailType: thumbnail.headers.get("content-type"),
		thumbnail: new Uint8Array(await thumbnail.arrayBuffer()),
	};
}

describe("fax ingest", () => {
	test("--json prints the fax as the API shows it also when the receipt key was used, and a removal since", async () => {
		const tiff = join(FIXTURES, "fax-g3-2d.tif");
		const args = ["ingest", tiff, "--source", "phone", "--receipt-key", "json-repeat:1", "--json"];
		const first = await runFax(args, server.env);
		expect(first.code).toBe(0);
		const fax = JSON.parse(first.stdout) as ApiFax;
		const again = await runFax(args, server.env);
		expect({ code: again.code, fax: JSON.parse(again.stdout) }).toEqual({
			code: 0,
			fax: await apiView(fax.slug),
		});
		expect(again.stderr).toBe(`ingest: already listed as ${fax.slug} (receipt key json-repeat:1)\n`);
		expect((await runFax(["remove", fax.slug], server.env)).code).toBe(0);
		const removed = await runFax(args, server.env);
		expect({ code: removed.code, out: JSON.parse(removed.stdout) }).toEqual({
			code: 0,
			out: { slug: fax.slug, removed: true },
		});
	});

	test("a multi-page G4 TIFF from a fax receiver becomes a listed fax with PDF and thumbnail", async () => {
		const tiff = await writeInput(
			"fax.tif",
			await faxTiff({ pages: 3, width: 1728, height: 1100, xDpi: 204, yDpi: 98 }),
		);
		const result = await runFax(
			["ingest", tiff, "--source", "phone", "--sender", "+1 555 123 4567", "--json"],
			server.env,
		);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		const printed = JSON.parse(result.stdout) as ApiFax;
		const slug = printed.slug;
		expect(slug).toMatch(/^fax_[A-Za-z0-9]{12}$/);

		const files = await storedFiles(slug);
		expect(files.pdfStatus).toBe(200);
		expect(files.pdfType).toBe("application/pdf");
		const pdf = await PDFDocument.load(files.pdf);
		expect(pdf.getPageCount()).toBe(3);
		// 1728 × 1100 pixels at 204 × 98 dpi: 609.9 × 808.2 points, not stretched.
		const { width, height } = pdf.getPage(0).getSize();
		expect([Math.round(width), Math.round(height)]).toEqual([610, 808]);
		expect(files.thumbnailType).toBe("image/jpeg");
		const thumbnail = await sharp(files.thumbnail).metadata();
		expect([thumbnail.format, thumbnail.width]).toEqual(["jpeg", 600]);

		const fax = await apiView(slug);
		expect(fax).toEqual({
			slug,
			source: "phone",
			from: "+155*****567",
			received_at: fax.received_at,
			page_count: 3,
			file_size: files.pdf.byteLength,
			pdf_url: `http://127.0.0.1:1/cdn/faxes/${slug}.pdf`,
			thumbnail_url: `http://127.0.0.1:1/cdn/faxes/${slug}-thumb.jpg`,
			view_url: `https://site.test.example/faxtest/${slug}`,
		});
		expect(printed).toEqual(fax);
		const list = (await (await server.request("/api/faxes?from=%2B15551234567")).json()) as unknown[];
		expect(list).toEqual([fax]);
	});

	test("a PDF is stored as received, with the time given", async () => {
		const bytes = await textPdf([A4, A4]);
		const path = await writeInput("scan.pdf", bytes);
		const result = await runFax(
			["ingest", path, "--source", "email", "--received-at", agoIn(9_045, "+01:00")],
			server.env,
		);
		expect(result.code).toBe(0);
		const slug = result.stdout.trim();
		const files = await storedFiles(slug);
		expect(files.pdf).toEqual(new Uint8Array(bytes));
		const fax = await apiView(slug);
		expect([fax.source, fax.from, fax.received_at, fax.page_count, fax.file_size]).toEqual([
			"email",
			null,
			ago(9_045),
			2,
			bytes.byteLength,
		]);
	});

	/** The scan-to-email fixture with its Date header set to `date`. */
	async function scanEmail(date: Date): Promise<string> {
		const email = await Bun.file(join(FIXTURES, "scan-to-email.eml")).text();
		return email.replace(/^Date: .*$/m, `Date: ${date.toUTCString()}`);
	}

	test("an email piped on standard input: sender from From, time from Date, the PDF attachment", async () => {
		const sent = new Date(Math.floor(Date.now() / 1000) * 1000 - 90_000);
		const result = await runFax(
			["ingest", "-", "--source", "email", "--json"],
			server.env,
			await scanEmail(sent),
		);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		const fax = JSON.parse(result.stdout) as ApiFax;
		expect([fax.source, fax.from, fax.received_at, fax.page_count]).toEqual([
			"email",
			"s***@e***.com",
			`${sent.toISOString().slice(0, 19)}Z`,
			2,
		]);
		const files = await storedFiles(fax.slug);
		expect(fax.file_size).toBe(files.pdf.byteLength);
		expect((await sharp(files.thumbnail).metadata()).width).toBe(600);
	});

	test("an email Date from a clock off by more than 5 minutes gives way to the arrival time", async () => {
		for (const offsetMs of [-3_600_000, -360_000, 3_600_000]) {
			const before = Math.floor(Date.now() / 1000);
			const email = await scanEmail(new Date(Date.now() + offsetMs));
			const result = await runFax(["ingest", "-", "--source", "email", "--json"], server.env, email);
			const after = Math.floor(Date.now() / 1000);
			expect(result.code).toBe(0);
			const receivedAt = Date.parse((JSON.parse(result.stdout) as ApiFax).received_at as string) / 1000;
			expect(receivedAt).toBeGreaterThanOrEqual(before);
			expect(receivedAt).toBeLessThanOrEqual(after);
		}
	});

	test("an input past 40 MiB is recorded as not processable without being read whole", async () => {
		const path = join(server.dir, "huge.pdf");
		await Bun.write(path, "%PDF-1.7\n");
		truncateSync(path, 40 * 1024 * 1024 + 10);
		for (const [args, stdin, name] of [
			[[path], undefined, path],
			[["-"], Bun.file(path), "standard input"],
		] as const) {
			const result = await runFax(["ingest", ...args, "--source", "email", "--json"], server.env, stdin);
			expect(result.code).toBe(3);
			expect(result.stderr).toBe(`ingest: ${name}: not processable: file is larger than 40 MiB\n`);
			expect((JSON.parse(result.stdout) as ApiFax).page_count).toBeNull();
		}
	});

	test.each([
		["an email without attachment", "no-attachment.eml", null, "email has no PDF or TIFF attachment"],
		["a truncated PDF", "truncated.pdf", "truncate", "truncated or corrupt PDF"],
		["a text file renamed .pdf", "text.pdf", "Dear fax machine,\nhello.\n", "not a PDF or TIFF file"],
		["an empty file", "empty.tif", "", "file is empty"],
	])(
		"%s is recorded as not processable, exit 3, the reason on standard error",
		async (_, name, content, reason) => {
			let path = join(FIXTURES, name);
			if (content === "truncate") {
				const pdf = await textPdf([A4, A4]);
				path = await writeInput(name, pdf.slice(0, Math.floor(pdf.byteLength / 2)));
			} else if (content !== null) {
				path = await writeInput(name, content);
			}
			const result = await runFax(["ingest", path, "--source", "email", "--json"], server.env);
			expect(result.code).toBe(3);
			expect(result.stderr).toBe(`ingest: ${path}: not processable: ${reason}\n`);
			const fax = JSON.parse(result.stdout) as ApiFax;
			expect(await apiView(fax.slug)).toEqual(fax);
			expect([fax.page_count, fax.file_size, fax.pdf_url, fax.thumbnail_url]).toEqual([
				null,
				null,
				null,
				null,
			]);
			expect((await storedFiles(fax.slug)).pdfStatus).toBe(404);
		},
	);

	test("an unreadable input records nothing and exits 1", async () => {
		const before = await (await server.request("/api/faxes?limit=100")).text();
		const missing = join(server.dir, "missing.tif");
		expect(await runFax(["ingest", missing, "--source", "phone"], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `ingest: ${missing}: cannot be read; nothing was recorded\n`,
		});
		expect(await (await server.request("/api/faxes?limit=100")).text()).toBe(before);
	});

	test("bad arguments exit 2 with the usage", async () => {
		const path = await writeInput("args.pdf", await textPdf([A4]));
		for (const [args, message] of [
			[[path], "--source must be phone or email"],
			[[path, "--source", "fax"], "--source must be phone or email"],
			[[path, "--source", "phone", "--received-at", "yesterday"], "--received-at must be ISO 8601"],
			[["--source", "phone"], "expected 1 argument, got 0"],
			[[path, "--source", "phone", "--colour"], "unknown option --colour"],
		] as const) {
			const result = await runFax(["ingest", ...args], server.env);
			expect(result.code).toBe(2);
			expect(result.stderr).toStartWith(`fax ingest: ${message}`);
			expect(result.stderr.trimEnd().split("\n")).toEqual([
				expect.stringMatching(new RegExp(`^fax ingest: ${message.replace(/[-[\]'|]/g, "\\$&")}`)),
				'Run "fax ingest --help" for its arguments.',
			]);
		}
	});
});
