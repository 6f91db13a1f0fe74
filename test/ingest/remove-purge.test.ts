import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { captureLog } from "../../testkit/log.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

const A4: [number, number] = [595.28, 841.89];
let server: TestServer;
let pdfPath: string;

beforeAll(async () => {
	server = await startTestServer();
	pdfPath = join(server.dir, "input.pdf");
	await Bun.write(pdfPath, await textPdf([A4]));
});
afterAll(() => server.stop());

async function ingest(...extra: string[]): Promise<string> {
	const result = await runFax(["ingest", pdfPath, "--source", "phone", ...extra], server.env);
	expect(result.code).toBe(0);
	return result.stdout.trim();
}

function filesOf(slug: string): boolean[] {
	const dir = join(server.storageDir, "faxes");
	return [existsSync(join(dir, `${slug}.pdf`)), existsSync(join(dir, `${slug}-thumb.jpg`))];
}

const isoDaysAgo = (days: number, extraSeconds = 0) =>
	`${new Date(Date.now() - days * 86_400_000 - extraSeconds * 1000).toISOString().slice(0, 19)}Z`;

describe("fax remove", () => {
	test("answers 410 from then on, deletes the files, never lists the fax again", async () => {
		const slug = await ingest("--sender", "REMOVE 1");
		expect(filesOf(slug)).toEqual([true, true]);
		expect(await runFax(["remove", slug], server.env)).toEqual({
			code: 0,
			stdout: `removed ${slug}\n`,
			stderr: "",
		});
		const single = await server.request(`/api/faxes/${slug}`);
		expect(single.status).toBe(410);
		expect(await single.text()).toBe('{"message":""}');
		expect(await (await server.request("/api/faxes?from=REMOVE1")).json()).toEqual([]);
		expect(filesOf(slug)).toEqual([false, false]);
		expect((await server.request(`/cdn/faxes/${slug}.pdf`)).status).toBe(404);
	});

	test("an unknown or already removed slug exits 1; a malformed one exits 2", async () => {
		const slug = await ingest();
		await runFax(["remove", slug], server.env);
		expect(await runFax(["remove", slug], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `remove: no fax ${slug} (unknown, or already removed)\n`,
		});
		expect((await runFax(["remove", "fax_doesNotExist"], server.env)).code).toBe(1);
		const malformed = await runFax(["remove", "../../etc/passwd"], server.env);
		expect(malformed.code).toBe(2);
		expect(malformed.stderr).toStartWith("fax remove: not a fax slug: ../../etc/passwd");
	});
});

describe("fax purge", () => {
	test("deletes rows and files past 30 days, keeps 410, is idempotent", async () => {
		const expired = await ingest("--received-at", isoDaysAgo(30, 5));
		const kept = await ingest("--received-at", isoDaysAgo(29));
		expect((await server.request(`/api/faxes/${expired}`)).status).toBe(410);
		expect(filesOf(expired)).toEqual([true, true]);

		const first = await runFax(["purge"], server.env);
		expect(first.code).toBe(0);
		expect(first.stdout).toBe("purged 1 fax past retention\n");
		expect(filesOf(expired)).toEqual([false, false]);
		expect(filesOf(kept)).toEqual([true, true]);
		expect((await server.request(`/api/faxes/${expired}`)).status).toBe(410);
		expect((await server.request(`/api/faxes/${kept}`)).status).toBe(200);

		expect(await runFax(["purge"], server.env)).toEqual({
			code: 0,
			stdout: "purged 0 faxes past retention\n",
			stderr: "",
		});
	});

	test("the server purges by itself every PURGE_INTERVAL", async () => {
		const { logger, lines } = captureLog();
		const own = await startTestServer({ env: { PURGE_INTERVAL: "1" }, logger });
		try {
			const result = await runFax(
				["ingest", pdfPath, "--source", "phone", "--received-at", isoDaysAgo(31)],
				own.env,
			);
			expect(result.code).toBe(0);
			const slug = result.stdout.trim();
			const paths = join(own.storageDir, "faxes", `${slug}.pdf`);
			// The purge logs its line after both files are gone, so the line is what to wait for (the
			// server's purge may come any moment after the ingest: the file is not looked for before).
			const purged = () =>
				lines.some((line) => line.msg === "purge: removed faxes past retention" && line.removed === 1);
			const deadline = Date.now() + 5000;
			while (!purged() && Date.now() < deadline) await Bun.sleep(50);
			expect(purged()).toBe(true);
			expect(existsSync(paths)).toBe(false);
			expect((await own.request(`/api/faxes/${slug}`)).status).toBe(410);
		} finally {
			await own.stop();
		}
	});

	test("--help and bad arguments", async () => {
		const help = await runFax(["purge", "--help"], server.env);
		expect(help.code).toBe(0);
		expect(help.stdout).toStartWith("Usage: fax purge\n");
		expect((await runFax(["purge", "now"], server.env)).code).toBe(2);
	});
});
