import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

const iso = (secondsAgo: number) => `${new Date(Date.now() - secondsAgo * 1000).toISOString().slice(0, 19)}Z`;

/** A PDF to ingest and an import of 20,000 faxes over the last day, in the server's folder. */
async function writeInputs(dir: string): Promise<{ pdf: string; bulk: string }> {
	const pdf = join(dir, "fax.pdf");
	await Bun.write(pdf, await textPdf([[595.28, 841.89]]));
	const bulk = join(dir, "bulk.json");
	await Bun.write(
		bulk,
		JSON.stringify(
			Array.from({ length: 20_000 }, (_, i) => ({
				source: "phone",
				sender: `+1 555 000 ${String(i).padStart(4, "0")}`,
				received_at: iso(i % 86_000),
				page_count: 1,
				file_size: 100,
			})),
		),
	);
	return { pdf, bulk };
}

/** Twelve readers ask the paths in turn, from before `work` starts until it has ended, counting each status. */
async function readAround<T>(paths: string[], work: () => Promise<T>) {
	const statuses = new Map<number, number>();
	let writing = true;
	const reader = async (path: string) => {
		while (writing) {
			const response = await server.request(path);
			await response.arrayBuffer();
			statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
		}
	};
	const readers = Array.from({ length: 12 }, (_, i) => reader(paths[i % paths.length] ?? "/api/faxes"));
	const result = await work();
	writing = false;
	await Promise.all(readers);
	return { result, statuses };
}

function writeAll(pdf: string, bulk: string, toRemove: string) {
	return Promise.all([
		runFax(["import", bulk], server.env),
		runFax(["ingest", pdf, "--source", "email"], server.env),
		runFax(["ingest", pdf, "--source", "phone"], server.env),
		runFax(["remove", toRemove], server.env),
		runFax(["purge"], server.env),
		runFax(["ingest", pdf, "--source", "phone"], server.env),
		// A purge reads before it writes: several beside the other writers catch
		// a transaction whose read snapshot goes stale (SQLITE_BUSY).
		runFax(["purge"], server.env),
		runFax(["purge"], server.env),
	]);
}

test("ingest, import, remove and purge beside heavy reads: no reader sees an error", async () => {
	const { pdf, bulk } = await writeInputs(server.dir);
	const expired = await runFax(
		["ingest", pdf, "--source", "phone", "--received-at", iso(31 * 86_400)],
		server.env,
	);
	const toRemove = await runFax(["ingest", pdf, "--source", "phone"], server.env);

	const paths = [
		"/api/faxes?limit=100",
		"/api/faxes?from=%2B15550000042",
		`/api/faxes/${toRemove.stdout.trim()}`,
		`/api/faxes/${expired.stdout.trim()}`,
	];
	const { result: writers, statuses } = await readAround(paths, () =>
		writeAll(pdf, bulk, toRemove.stdout.trim()),
	);

	expect(writers.map((result) => [result.code, result.stderr])).toEqual(writers.map(() => [0, ""]));
	const seen = [...statuses.keys()].sort();
	expect(seen.every((status) => status === 200 || status === 410)).toBe(true);
	expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
	expect((await (await server.request("/api/faxes?from=%2B15550000042")).json()) as unknown[]).toHaveLength(
		1,
	);
});
