import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { type CheckoutCopy, checkoutWithoutSharpBinary } from "../../testkit/broken-pipeline.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir, runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

// A host whose npm install dropped sharp's native package (found on a fresh
// Debian 12: npm ci under Node 18 exits 0 without it). Its faxes must not be
// listed as "not processable": they wait, and are listed right once fixed.

const ROOT = join(import.meta.dir, "../..");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const EMAIL = join(ROOT, "fixtures/ingest/scan-to-email.eml");
const SHARP_FAULT =
	'the document pipeline cannot load sharp: Could not load the "sharp" module using the linux-x64 runtime';

let broken: CheckoutCopy;
let server: TestServer;
beforeAll(async () => {
	broken = checkoutWithoutSharpBinary();
	server = await startTestServer();
});
afterAll(async () => {
	await server.stop();
	broken.remove();
});

/** A fax command run from a checkout: the broken copy or this one. */
function faxIn(dir: string, args: string[], stdin?: Blob) {
	return runCommand([process.execPath, "bin/fax.ts", ...args], { cwd: dir, env: server.env, stdin });
}

/** fax receive-hylafax as hand-over runs it: the queue file itself on standard input. */
function handOver(dir: string, path: string) {
	return runCommand(
		["sh", "-c", 'exec "$0" bin/fax.ts receive-hylafax "$(basename "$1")" < "$1"', process.execPath, path],
		{ cwd: dir, env: server.env },
	);
}

async function listed(): Promise<{ slug: string; page_count: number | null; from: string | null }[]> {
	return (await (await server.request("/api/faxes?limit=100&since=2000-01-01T00:00:00Z")).json()) as {
		slug: string;
		page_count: number | null;
		from: string | null;
	}[];
}

describe("a host whose document pipeline does not load", () => {
	test("fax check names the part in one line and exits 1; on a sound host it exits 0", async () => {
		expect(await faxIn(broken.dir, ["check"])).toEqual({
			code: 1,
			stdout: "",
			stderr: `fax check: ${SHARP_FAULT}\n`,
		});
		expect(await runFax(["check"], server.env)).toEqual({
			code: 0,
			stdout: "fax check: the document pipeline loads (sharp, PDFium)\n",
			stderr: "",
		});
	});

	test("fax ingest records nothing and says why", async () => {
		const failed = await faxIn(broken.dir, ["ingest", TIFF, "--source", "phone", "--sender", "5550901"]);
		expect(failed).toEqual({
			code: 1,
			stdout: "",
			stderr: `ingest: ${SHARP_FAULT}; nothing was recorded: fix the host (\`fax check\`), then ingest again\n`,
		});
		expect(await listed()).toEqual([]);
	});

	test("a fax by phone stays in the receive queue, and is listed right once the host is fixed", async () => {
		const recvq = join(makeTempDir(), "recvq");
		mkdirSync(recvq);
		const queued = join(recvq, "fax000000901.tif");
		copyFileSync(TIFF, queued);
		// Its last write is the call's time: by this process's clock, which test:any-date moves; the file system's is not.
		utimesSync(queued, new Date(), new Date());
		const waiting = await handOver(broken.dir, queued);
		expect(waiting).toEqual({
			code: 1,
			stdout: "",
			stderr: `fax000000901.tif: not listed yet, kept in the receive queue for the next sweep: ${SHARP_FAULT}\n`,
		});
		expect(await listed()).toEqual([]);
		const fixed = await handOver(ROOT, queued);
		expect([fixed.code, fixed.stdout]).toEqual([
			0,
			expect.stringMatching(/^fax000000901\.tif: listed as fax_\w+ \(2 pages\)\n$/),
		]);
		expect((await listed()).map((fax) => fax.page_count)).toEqual([2]);
	});

	test("an email is deferred (75) for the mail server to deliver again, and is listed right once fixed", async () => {
		// Received by our mail server now, by this process's clock: the fixture's own date ages, and test:any-date moves the clock.
		const now = new Date().toUTCString().replace("GMT", "+0000");
		const message = new Blob([
			(await Bun.file(EMAIL).text()).replace(
				/(\tby mail\.example\.net with ESMTP id 4711; ).*\r\n/,
				`$1${now}\r\n`,
			),
		]);
		const deferred = await faxIn(broken.dir, ["receive-mail", "Q901"], message);
		expect(deferred).toEqual({
			code: 75,
			stdout: "",
			stderr: `receive-mail: not listed now, the mail server will retry: ${SHARP_FAULT}\n`,
		});
		const before = (await listed()).length;
		const delivered = await faxIn(ROOT, ["receive-mail", "Q901"], message);
		expect(delivered.code).toBe(0);
		expect((await listed()).length).toBe(before + 1);
		expect((await listed())[0]?.page_count).toBe(2);
	});

	test("with sharp's WebAssembly fallback installed (Debian's npm 9.2), fax check and the hand-over end, in one line; the fax waits", async () => {
		// Without its native package sharp falls back to @img/sharp-wasm32, whose first call never returns under Bun.
		const wasm = checkoutWithoutSharpBinary({ wasmFallback: true });
		try {
			const queued = join(makeTempDir(), "fax000000903.tif");
			copyFileSync(TIFF, queued);
			const before = (await listed()).length;
			const [check, waiting] = await Promise.all([faxIn(wasm.dir, ["check"]), handOver(wasm.dir, queued)]);
			const fault =
				"the document pipeline cannot load sharp: its native package is missing, and its WebAssembly fallback does not run under Bun";
			expect(check).toEqual({ code: 1, stdout: "", stderr: `fax check: ${fault}\n` });
			expect(waiting).toEqual({
				code: 1,
				stdout: "",
				stderr: `fax000000903.tif: not listed yet, kept in the receive queue for the next sweep: ${fault}\n`,
			});
			expect((await listed()).length).toBe(before);
		} finally {
			wasm.remove();
		}
	}, 90_000);

	test("the server's readiness is 503 and names the part; a sound server is ready", async () => {
		const env = { ...server.env, PORT: "0", ADMIN_PORT: "0" };
		const brokenServer = await startServerProcess(env, { app: broken.dir });
		try {
			const answer = await fetch(`${brokenServer.adminUrl}/readyz`);
			expect([answer.status, await answer.json()]).toEqual([
				503,
				{ status: "unready", database: "ok", documents: SHARP_FAULT, rate_limit: "memory", redis_mode: null },
			]);
			// The API itself still answers: only the host's receiving is broken.
			expect((await fetch(`${brokenServer.url}/api/faxes`, { headers: { "user-agent": "t" } })).status).toBe(
				200,
			);
		} finally {
			brokenServer.child.kill("SIGTERM");
			await brokenServer.child.exited;
		}
		const ready = await server.admin("/readyz");
		expect([ready.status, ((await ready.json()) as { documents: string }).documents]).toEqual([200, "ok"]);
	});
});

describe("fax reprocess", () => {
	const HOUR_AGO = Math.floor(Date.now() / 1000) - 3600;

	/** A fax listed as not processable by an earlier version on a broken host, its original kept. */
	async function listedWrong(slug: string, bytes: Uint8Array, receiptKey: string): Promise<void> {
		const db = openDatabase(server.databasePath);
		try {
			const fax = {
				slug,
				source: "phone" as const,
				sender: "5550902",
				received_at: HOUR_AGO,
				page_count: null,
				file_size: null,
			};
			const original = { bytes, filename: "fax000000902.tif", relayed: false };
			await new FaxStore(db).insertReceived(fax, receiptKey, { original, report: "{}" });
		} finally {
			db.close();
		}
	}

	test("lists a fax listed wrong again from its original, under a new slug; the old one answers 410", async () => {
		await listedWrong(
			"fax_wrong0000001",
			await Bun.file(TIFF).bytes(),
			`hylafax:fax000000902.tif:${HOUR_AGO}`,
		);
		const again = await runFax(["reprocess", "fax_wrong0000001"], server.env);
		const slug = again.stdout.trim();
		expect(again).toEqual({
			code: 0,
			stdout: expect.stringMatching(/^fax_\w{12}\n$/),
			stderr: `reprocess: fax_wrong0000001 is listed again as ${slug} (2 pages); fax_wrong0000001 answers 410\n`,
		});
		expect((await server.request("/api/faxes/fax_wrong0000001")).status).toBe(410);
		const fax = (await (await server.request(`/api/faxes/${slug}`)).json()) as Record<string, unknown>;
		expect(fax).toMatchObject({
			slug,
			page_count: 2,
			received_at: new Date(HOUR_AGO * 1000).toISOString().replace(".000Z", "Z"),
			source: "phone",
		});
		expect(
			(await fetch(String(fax.pdf_url).replace("https://cdn.test.example", `${server.baseUrl}/cdn`))).status,
		).toBe(200);
		// The receiver handing the same fax over again now gets the new slug.
		const db = openDatabase(server.databasePath);
		try {
			expect(await new FaxStore(db).receiptSlug(`hylafax:fax000000902.tif:${HOUR_AGO}`)).toBe(slug);
		} finally {
			db.close();
		}
		expect((await runFax(["reprocess", slug], server.env)).code).toBe(1);
	});

	test("a document at fault stays not processable (3), its original kept; a removed fax keeps none (1)", async () => {
		const empty = join(makeTempDir(), "empty.pdf");
		await Bun.write(empty, "%PDF-1.4\n");
		const ingested = await runFax(["ingest", empty, "--source", "email"], server.env);
		expect(ingested.code).toBe(3);
		const slug = ingested.stdout.trim();
		// Out of the API: nothing of the original is served.
		expect((await fetch(`${server.baseUrl}/cdn/faxes/${slug}.pdf`)).status).toBe(404);
		const still = await runFax(["reprocess", slug], server.env);
		expect([still.code, still.stdout, still.stderr]).toEqual([
			3,
			"",
			expect.stringMatching(new RegExp(`^reprocess: ${slug} is still not processable: .+\n$`)),
		]);
		expect((await runFax(["remove", slug], server.env)).code).toBe(0);
		expect(await runFax(["reprocess", slug], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `reprocess: no not-processable fax ${slug} with its original kept\n`,
		});
	});
});
