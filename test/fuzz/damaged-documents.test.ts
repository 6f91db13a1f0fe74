import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { jpegInfo, pdfPageSizes } from "../document/inspect.ts";
import { faxTiff, textPdf } from "../document/make-files.ts";
import { PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

/**
 * Received files damaged at random (bytes overwritten, integers of the
 * header set to edge values, cut short, pieces copied elsewhere), ingested by
 * `fax ingest` as a receiver runs it. Each is either processed, with a PDF
 * and a thumbnail that other readers open, or recorded as not processable
 * with one line saying why; never a crash, never a half-written fax.
 */

interface Seed {
	name: string;
	source: "phone" | "email";
	bytes: Uint8Array;
	/**
	 * What is stored: our conversion of a TIFF, which other readers must open;
	 * a PDF as received, byte for byte; or an email's attachment.
	 */
	stored: "converted" | "as received" | "attachment";
}

type Damage =
	| { kind: "byte"; at: number; value: number }
	| { kind: "int"; offset: number; fromEnd: boolean; value: number; width: 2 | 4; littleEndian: boolean }
	| { kind: "cut"; at: number }
	| { kind: "copy"; from: number; length: number; to: number };

// Where parsers go wrong: zero, one, the edges of signed and unsigned 16 and 32 bits.
const EDGE_VALUES = [
	0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
];
const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

// Weighted so that about one file in four is still processed: cuts rarely leave one whole.
const damage: fc.Arbitrary<Damage> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant("byte" as const),
			at: fraction,
			value: fc.integer({ min: 0, max: 255 }),
		}),
	},
	// Headers, directories and trailers sit near either end of a file.
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("int" as const),
			offset: fc.nat(1023),
			fromEnd: fc.boolean(),
			value: fc.constantFrom(...EDGE_VALUES),
			width: fc.constantFrom(2 as const, 4 as const),
			littleEndian: fc.boolean(),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("cut" as const), at: fraction }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant("copy" as const),
			from: fraction,
			length: fc.nat(200),
			to: fraction,
		}),
	},
);

function damaged(input: Uint8Array, damages: Damage[]): Uint8Array {
	let bytes = input.slice();
	for (const change of damages) {
		if (bytes.length < 8) break;
		const index = (at: number) => Math.floor(at * bytes.length);
		switch (change.kind) {
			case "byte":
				bytes[index(change.at)] = change.value;
				break;
			case "int": {
				const near = Math.min(change.offset, bytes.length - 4);
				const at = change.fromEnd ? bytes.length - 4 - near : near;
				const view = new DataView(bytes.buffer);
				if (change.width === 2) view.setUint16(at, change.value & 0xffff, change.littleEndian);
				else view.setUint32(at, change.value >>> 0, change.littleEndian);
				break;
			}
			case "cut":
				bytes = bytes.slice(0, index(change.at));
				break;
			case "copy": {
				const piece = bytes.slice(index(change.from), index(change.from) + change.length);
				const to = index(change.to);
				bytes = Uint8Array.from([...bytes.subarray(0, to), ...piece, ...bytes.subarray(to)]);
				break;
			}
		}
	}
	return bytes;
}

let server: TestServer;
let seeds: Seed[];
let cases = 0;
const outcomes = new Map<string, number>();

beforeAll(async () => {
	server = await startTestServer();
	const g4 = await faxTiff({ pages: 2, width: 864, height: 600, xDpi: 204, yDpi: 196 });
	seeds = [
		{ name: "G4 TIFF", source: "phone", bytes: g4, stored: "converted" },
		{
			name: "HylaFAX G3 2D TIFF",
			source: "phone",
			bytes: await Bun.file("fixtures/ingest/fax-g3-2d.tif").bytes(),
			stored: "converted",
		},
		{ name: "PDF", source: "phone", bytes: await textPdf([[595, 842]]), stored: "as received" },
		{
			name: "scan-to-email",
			source: "email",
			bytes: await Bun.file("fixtures/ingest/scan-to-email.eml").bytes(),
			stored: "attachment",
		},
	];
});
afterAll(async () => {
	console.log(
		`damaged documents: ${cases} ingested; ${[...outcomes].map(([outcome, n]) => `${n} ${outcome}`).join(", ")}`,
	);
	await server.stop();
});

interface Fax {
	slug: string;
	page_count: number | null;
	file_size: number | null;
	pdf_url: string | null;
	thumbnail_url: string | null;
}

/** What is wrong with the outcome of one ingest: its exit, its output, the API and the stored files. */
async function ingestProblems(seed: Seed, input: string, bytes: Uint8Array): Promise<string[]> {
	const result = await runFax(["ingest", input, "--source", seed.source, "--json"], server.env);
	if (result.code !== 0 && result.code !== 3) return [`exit ${result.code}: ${result.stderr}`];
	const problems: string[] = [];
	const fax = JSON.parse(result.stdout) as Fax;
	const shown = await server.request(`/api/faxes/${fax.slug}`);
	const api = (await shown.json()) as Fax;
	if (JSON.stringify(api) !== JSON.stringify(fax)) problems.push(`the API shows ${JSON.stringify(api)}`);
	const pdf = join(server.storageDir, "faxes", `${fax.slug}.pdf`);
	const thumbnail = join(server.storageDir, "faxes", `${fax.slug}-thumb.jpg`);
	if (result.code === 3) {
		outcomes.set("not processable", (outcomes.get("not processable") ?? 0) + 1);
		const reason = result.stderr.trim();
		if (reason === "" || reason.includes("\n"))
			problems.push(`not one line: ${JSON.stringify(result.stderr)}`);
		if (
			fax.page_count !== null ||
			fax.file_size !== null ||
			fax.pdf_url !== null ||
			fax.thumbnail_url !== null
		) {
			problems.push("a fax not processable shows a document");
		}
		if (existsSync(pdf) || existsSync(thumbnail))
			problems.push("files were stored for a fax not processable");
		return problems;
	}
	outcomes.set("processed", (outcomes.get("processed") ?? 0) + 1);
	if (fax.page_count === null || fax.page_count < 1) problems.push(`page_count ${fax.page_count}`);
	if (!existsSync(pdf) || statSync(pdf).size !== fax.file_size)
		problems.push("the PDF is missing or of another size");
	else if (seed.stored === "as received") {
		if (!Buffer.from(await Bun.file(pdf).bytes()).equals(bytes))
			problems.push("the PDF is not stored as received");
	} else if (seed.stored === "converted") {
		const pages = await pdfPageSizes(await Bun.file(pdf).bytes()).then(
			(sizes) => sizes.length,
			(error: Error) => error.message,
		);
		if (pages !== fax.page_count)
			problems.push(`pdf-lib reads the PDF as ${pages}, not ${fax.page_count} pages`);
	}
	const jpeg = existsSync(thumbnail) ? await jpegInfo(await Bun.file(thumbnail).bytes()) : null;
	if (jpeg?.format !== "jpeg" || jpeg.width !== 600) problems.push(`thumbnail ${JSON.stringify(jpeg)}`);
	return problems;
}

test(
	"fax ingest of a damaged file: processed whole, or recorded as not processable with one line, never a crash",
	async () => {
		await fc.assert(
			fc.asyncProperty(fc.nat(), fc.array(damage, { minLength: 1, maxLength: 3 }), async (pick, damages) => {
				const seed = seeds[pick % seeds.length] as Seed;
				const input = join(server.dir, `damaged-${++cases}`);
				const bytes = damaged(seed.bytes, damages);
				await Bun.write(input, bytes);
				const problems = await ingestProblems(seed, input, bytes);
				const stored = join(server.storageDir, "faxes");
				const strays = existsSync(stored) ? readdirSync(stored).filter((name) => name.includes(".tmp-")) : [];
				if (strays.length > 0) problems.push(`temporary files left: ${strays.join(", ")}`);
				expect({ seed: seed.name, damages, problems }).toEqual({ seed: seed.name, damages, problems: [] });
			}),
			runs("damagedDocuments"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
