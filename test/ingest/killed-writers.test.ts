import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { STRAY_FILE_AGE_SECONDS } from "../../lib/storage/index.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

const KILLS = 20;
const ROOT = join(import.meta.dir, "../..");
const A4: [number, number] = [595.28, 841.89];

let server: TestServer;
let pdfPath: string;
beforeAll(async () => {
	server = await startTestServer();
	pdfPath = join(server.dir, "input.pdf");
	await Bun.write(pdfPath, await textPdf([A4, A4, A4]));
});
afterAll(() => server.stop());

const faxesDir = () => join(server.storageDir, "faxes");
const tempFiles = () => {
	try {
		return readdirSync(faxesDir()).filter((name) => name.includes(".tmp-"));
	} catch {
		return [];
	}
};

/** Runs `fax …args` and SIGKILLs it after `delayMs`; resolves when it is gone. */
async function killedAfter(args: string[], delayMs: number): Promise<void> {
	const child = Bun.spawn([process.execPath, "bin/fax.ts", ...args], {
		cwd: ROOT,
		env: childEnv(server.env),
		stdout: "ignore",
		stderr: "ignore",
	});
	await Bun.sleep(delayMs);
	child.kill("SIGKILL");
	await child.exited;
}

interface Listed {
	slug: string;
	file_size: number | null;
}

/** Every listed fax's files are there, whole; returns the listed faxes. */
async function everyListedFaxIsWhole(): Promise<Listed[]> {
	const listed = (await (await server.request("/api/faxes?limit=100")).json()) as Listed[];
	for (const fax of listed) {
		const pdf = join(faxesDir(), `${fax.slug}.pdf`);
		const thumbnail = join(faxesDir(), `${fax.slug}-thumb.jpg`);
		expect({ slug: fax.slug, pdf: statSync(pdf, { throwIfNoEntry: false })?.size }).toEqual({
			slug: fax.slug,
			pdf: fax.file_size ?? undefined,
		});
		expect(statSync(thumbnail, { throwIfNoEntry: false })?.size ?? 0).toBeGreaterThan(0);
	}
	return listed;
}

test(`${KILLS} ingests and removals killed at random moments: nothing half-done is visible, and the purge leaves no stray file`, async () => {
	const started = performance.now();
	expect((await runFax(["ingest", pdfPath, "--source", "phone"], server.env)).code).toBe(0);
	const ingestMs = performance.now() - started;
	const delays: number[] = [];
	let strayAfterKills = 0;
	for (let i = 0; i < KILLS; i++) {
		const delay = Math.random() * ingestMs * 1.2;
		delays.push(Math.round(delay));
		await killedAfter(["ingest", pdfPath, "--source", "phone", "--sender", `KILLED ${i}`], delay);
		const listed = await everyListedFaxIsWhole();
		const victim = listed.find((fax) => fax.file_size !== null);
		if (victim !== undefined) {
			await killedAfter(["remove", victim.slug], Math.random() * ingestMs * 0.5);
			const status = (await server.request(`/api/faxes/${victim.slug}`)).status;
			expect([200, 410]).toContain(status);
			await everyListedFaxIsWhole();
		}
	}
	strayAfterKills = tempFiles().length;
	console.log(`killed writers at ${delays.join(", ")} ms: ${strayAfterKills} stray temporary files`);

	// What a kill left, planted too (few kills land in the moment the files are
	// written), and aged past the hour; a fresh one is left alone: it may be a
	// live ingest's.
	await Bun.write(join(faxesDir(), "fax_Killed1-thumb.jpg.tmp-4243"), "half a thumbnail");
	const now = Date.now() / 1000;
	const aged = now - STRAY_FILE_AGE_SECONDS - 60;
	for (const name of tempFiles()) utimesSync(join(faxesDir(), name), aged, aged);
	await Bun.write(join(faxesDir(), "fax_Fresh1.pdf.tmp-4242"), "being written");
	// Stamped from this process's clock, which the purge shares: the kernel
	// stamps files with the real time, which a faked clock (test:any-date) is not.
	utimesSync(join(faxesDir(), "fax_Fresh1.pdf.tmp-4242"), now, now);
	expect((await runFax(["purge"], server.env)).code).toBe(0);
	expect(tempFiles()).toEqual(["fax_Fresh1.pdf.tmp-4242"]);

	const next = await runFax(["ingest", pdfPath, "--source", "phone", "--sender", "AFTER 1"], server.env);
	expect([next.code, next.stderr]).toEqual([0, ""]);
	await everyListedFaxIsWhole();
}, 120_000);

test("an ingest killed between its files and its row: the purge deletes files no row names once an hour old, not a listed fax's nor a fresh one's", async () => {
	const listed = await runFax(["ingest", pdfPath, "--source", "phone", "--sender", "KEPT 1"], server.env);
	expect(listed.code).toBe(0);
	const slug = listed.stdout.trim();
	await Bun.write(join(faxesDir(), "fax_Orphan1.pdf"), "a pdf no row names");
	await Bun.write(join(faxesDir(), "fax_Orphan1-thumb.jpg"), "its thumbnail");
	await Bun.write(join(faxesDir(), "fax_Orphan2.pdf"), "an ingest's, about to insert its row");
	const now = Date.now() / 1000;
	const aged = now - STRAY_FILE_AGE_SECONDS - 60;
	for (const name of ["fax_Orphan1.pdf", "fax_Orphan1-thumb.jpg", `${slug}.pdf`, `${slug}-thumb.jpg`]) {
		utimesSync(join(faxesDir(), name), aged, aged);
	}
	utimesSync(join(faxesDir(), "fax_Orphan2.pdf"), now, now);
	expect((await runFax(["purge"], server.env)).code).toBe(0);
	const left = readdirSync(faxesDir());
	expect(left.filter((name) => name.startsWith("fax_Orphan"))).toEqual(["fax_Orphan2.pdf"]);
	expect(left).toContain(`${slug}.pdf`);
	expect(left).toContain(`${slug}-thumb.jpg`);
});
