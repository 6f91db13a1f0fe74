import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

const A4: [number, number] = [595.28, 841.89];

let server: TestServer;
let storage: string;
beforeAll(async () => {
	server = await startTestServer();
	// The storage on a 3 MB tmpfs of its own (the tests run as root, as CI does).
	storage = join(server.dir, "small-disk");
	mkdirSync(storage);
	const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", storage]);
	if (mounted.exitCode !== 0) throw new Error(`mount failed: ${mounted.stderr.toString()}`);
});
afterAll(async () => {
	Bun.spawnSync(["umount", storage]);
	await server.stop();
});

test("a full disk: each ingest fails with exit 1 and one line, reads go on, and ingest works again once there is room", async () => {
	const env = { ...server.env, STORAGE_DIR: storage };
	const pdfPath = join(server.dir, "input.pdf");
	await Bun.write(pdfPath, await textPdf([A4, A4]));
	const filler = join(storage, "filler");
	mkdirSync(join(storage, "faxes"));
	await Bun.write(filler, new Uint8Array(3 * 1024 * 1024 - 4096));
	for (let i = 0; i < 3; i++) {
		const failed = await runFax(["ingest", pdfPath, "--source", "phone", "--sender", `FULL ${i}`], env);
		expect(failed.code).toBe(1);
		expect(failed.stdout).toBe("");
		expect(failed.stderr).toMatch(
			/^ingest: the fax cannot be stored \(STORAGE_DIR, DATABASE_PATH\): .*; nothing was recorded\n$/,
		);
		expect((await server.request(`/api/faxes?from=FULL%20${i}`)).status).toBe(200);
		expect(await (await server.request(`/api/faxes?from=FULL%20${i}`)).json()).toEqual([]);
	}
	expect(readdirSync(join(storage, "faxes"))).toEqual([]);
	rmSync(filler);
	const stored = await runFax(["ingest", pdfPath, "--source", "phone", "--sender", "ROOM 1"], env);
	expect([stored.code, stored.stderr]).toEqual([0, ""]);
	const listed = (await (await server.request("/api/faxes?from=ROOM%201")).json()) as { slug: string }[];
	expect(listed.map((fax) => fax.slug)).toEqual([stored.stdout.trim()]);
});
