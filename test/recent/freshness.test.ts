import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { sample } from "../../testkit/prometheus.ts";
import { runFax, startTestServer, type TestServer, useTestServers } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

// The server answers the newest faxes from memory; these tests write through
// other processes (the operator CLI, a writer of its own) and ask at once.

// The server of the describe block running now; the helpers below ask it.
let server: TestServer;

const secondsAgo = (seconds: number) => Math.floor(Date.now() / 1000) - seconds;
const iso = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;

async function slugs(path: string): Promise<string[]> {
	const response = await server.request(path);
	expect(response.status).toBe(200);
	return ((await response.json()) as { slug: string }[]).map((fax) => fax.slug);
}

async function importRecords(name: string, records: unknown[]): Promise<void> {
	const file = join(server.dir, name);
	await Bun.write(file, JSON.stringify(records));
	const result = await runFax(["import", file], server.env);
	expect(result.stderr).toBe("");
	expect(result.code).toBe(0);
}

const record = (slug: string, sender: string, at: number) => ({
	slug,
	source: "phone",
	sender,
	received_at: iso(at),
	page_count: 1,
	file_size: 10,
});

describe.each(["wal-index", "data_version"] as const)(
	"FRESHNESS_CHECK=%s: a commit by another process is seen by the very next request",
	(source) => {
		beforeAll(async () => {
			server = await startTestServer({ env: { FRESHNESS_CHECK: source } });
		});
		afterAll(() => server.stop());

		test("the server checks for commits the way it was told", async () => {
			const metrics = await (await server.admin("/metrics")).text();
			expect(sample(metrics, `testfax_freshness_check{source="${source}"}`)).toBe(1);
		});

		test("fax import, then fax remove: listed at once, then 410 at once", async () => {
			expect(await slugs("/api/faxes?from=FRESH%201")).toEqual([]);
			await importRecords("fresh.json", [
				record("fax_fresh1", "FRESH 1", secondsAgo(30)),
				record("fax_fresh2", "FRESH 1", secondsAgo(20)),
			]);
			expect(await slugs("/api/faxes?from=FRESH%201")).toEqual(["fax_fresh2", "fax_fresh1"]);
			expect((await server.request("/api/faxes/fax_fresh2")).status).toBe(200);

			expect((await runFax(["remove", "fax_fresh2"], server.env)).code).toBe(0);
			const gone = await server.request("/api/faxes/fax_fresh2");
			expect(gone.status).toBe(410);
			expect(await gone.text()).toBe('{"message":""}');
			expect(await slugs("/api/faxes?from=FRESH%201")).toEqual(["fax_fresh1"]);
			expect(await slugs("/api/faxes?from=FRESH%201&limit=1")).toEqual(["fax_fresh1"]);
		});

		test("fax ingest: the processed fax is listed by the next request", async () => {
			const pdf = join(server.dir, "fax.pdf");
			await Bun.write(pdf, await textPdf([[595.28, 841.89]]));
			expect(await slugs("/api/faxes?from=INGEST%207")).toEqual([]);
			const result = await runFax(["ingest", pdf, "--source", "phone", "--sender", "INGEST 7"], server.env);
			expect(result.code).toBe(0);
			const slug = result.stdout.trim();
			expect(await slugs("/api/faxes?from=INGEST%207")).toEqual([slug]);
			expect((await server.request(`/api/faxes/${slug}`)).status).toBe(200);
		});

		test("a fax imported late with an older time lands in its place, ties by insertion", async () => {
			const at = secondsAgo(600);
			await importRecords("before.json", [
				record("fax_order1", "ORDER 1", at - 10),
				record("fax_order3", "ORDER 1", at + 10),
			]);
			expect(await slugs("/api/faxes?from=ORDER%201")).toEqual(["fax_order3", "fax_order1"]);
			await importRecords("late.json", [
				record("fax_order2", "ORDER 1", at),
				record("fax_order0", "ORDER 1", at - 10),
			]);
			expect(await slugs("/api/faxes?from=ORDER%201")).toEqual([
				"fax_order3",
				"fax_order2",
				"fax_order0",
				"fax_order1",
			]);
		});

		test("fax purge: a fax past 30 days stays 410 and unlisted, the rest is unchanged", async () => {
			await importRecords("old.json", [
				record("fax_purged1", "PURGE 1", secondsAgo(30 * 86_400 + 60)),
				record("fax_kept1", "PURGE 1", secondsAgo(29 * 86_400)),
			]);
			const since = iso(secondsAgo(31 * 86_400));
			const before = await slugs(`/api/faxes?limit=100&since=${since}`);
			expect((await server.request("/api/faxes/fax_purged1")).status).toBe(410);
			expect((await runFax(["purge"], server.env)).stdout).toBe("purged 1 fax past retention\n");
			expect((await server.request("/api/faxes/fax_purged1")).status).toBe(410);
			expect(await slugs(`/api/faxes?from=PURGE%201&since=${since}`)).toEqual(["fax_kept1"]);
			expect(await slugs(`/api/faxes?limit=100&since=${since}`)).toEqual(before);
		});
	},
);

const startServer = useTestServers();

test("while another process commits fax after fax, every answer is a gapless newest-first run that includes the latest commit announced", async () => {
	const own = await startServer();
	const ownSlugs = async (path: string) => {
		const response = await own.request(path);
		expect(response.status).toBe(200);
		return ((await response.json()) as { slug: string }[]).map((fax) => fax.slug);
	};
	const count = 300;
	const base = secondsAgo(3600);
	const path = `/api/faxes?limit=100&since=${iso(base - 1)}`;
	const expected = (newest: number) =>
		Array.from({ length: Math.min(100, newest + 1) }, (_, i) => `fax_w${newest - i}`);
	const checkRun = (listed: string[]): number => {
		const newest = Number(listed[0]?.slice("fax_w".length) ?? -1);
		expect(listed).toEqual(expected(newest));
		return newest;
	};

	const writer = Bun.spawn([process.execPath, join(import.meta.dir, "writer-process.ts")], {
		env: childEnv({ DATABASE_PATH: own.databasePath, COUNT: String(count), BASE: String(base) }),
		stdout: "pipe",
		stderr: "inherit",
	});
	let writing = true;
	let background = 0;
	const reader = async () => {
		while (writing) {
			checkRun(await ownSlugs(path));
			background++;
		}
	};
	const readers = [reader(), reader()];

	let announced = 0;
	try {
		const decoder = new TextDecoder();
		let pending = "";
		for await (const chunk of writer.stdout) {
			pending += decoder.decode(chunk, { stream: true });
			const lines = pending.split("\n");
			pending = lines.pop() ?? "";
			if (lines.length === 0) continue;
			announced = Number(lines[lines.length - 1]);
			expect(checkRun(await ownSlugs(path))).toBeGreaterThanOrEqual(announced);
			expect((await own.request(`/api/faxes/fax_w${announced}`)).status).toBe(200);
		}
		expect(await writer.exited).toBe(0);
	} finally {
		writer.kill();
		writing = false;
		await Promise.allSettled(readers);
	}
	expect(announced).toBe(count - 1);
	expect(checkRun(await ownSlugs(path))).toBe(count - 1);
	expect(background).toBeGreaterThan(10);
}, 30_000);
