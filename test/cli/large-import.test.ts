import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { faxRecord } from "../../testkit/fixtures.ts";
import { outputOf } from "../../testkit/processes.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { steppedClock } from "../../testkit/stepped-clock.ts";
import { textPdf } from "../document/make-files.ts";

// Large enough to be written in several transactions, small enough for a test.
// Each of its imports took about 45 s at a load average of 11 on 2 cores, so
// the tests get 3 minutes: how long they take is not what they test.
const RECORDS = 150_000;
const ROOT = join(import.meta.dir, "../..");

let server: TestServer;
let pdf: string;
let reader: Database;
beforeAll(async () => {
	server = await startTestServer({
		faxes: [faxRecord({ slug: "fax_keep1" }), faxRecord({ slug: "fax_keep2" })],
	});
	pdf = join(server.dir, "fax.pdf");
	await Bun.write(pdf, await textPdf([[595.28, 841.89]]));
	reader = new Database(server.databasePath, { readonly: true });
});
afterAll(async () => {
	reader.close();
	await server.stop();
});

/** `count` records of one sender over the last hours, in random time order, the first with `slug`. */
async function recordsFile(name: string, sender: string, count: number, slug: string): Promise<string> {
	const now = Date.now();
	const records = Array.from({ length: count }, (_, i) => ({
		...(i === 0 ? { slug } : {}),
		source: "phone",
		sender,
		received_at: new Date(now - 60_000 - Math.floor(Math.random() * 3_600_000 * 20)).toISOString(),
		page_count: 1 + (i % 4),
		file_size: 1000 + i,
	}));
	const path = join(server.dir, name);
	await Bun.write(path, JSON.stringify(records));
	return path;
}

function startImport(file: string, env: Record<string, string> = {}) {
	return Bun.spawn([process.execPath, "bin/fax.ts", "import", file], {
		cwd: ROOT,
		env: childEnv({ ...server.env, ...env }),
		stdout: "pipe",
		stderr: "pipe",
	});
}

/** Rows written by an import that is not published yet (of `sender` only, if given): the API does not show them. */
function hiddenRows(sender?: string): number {
	const row = reader
		.query(
			`SELECT count(*) AS n FROM faxes JOIN fax_imports ON fax_imports.id = import_id
			 WHERE state = 'loading' AND (?1 IS NULL OR sender = ?1)`,
		)
		.get(sender ?? null) as { n: number };
	return row.n;
}

function imports(): { state: string }[] {
	return reader.query("SELECT state FROM fax_imports").all() as { state: string }[];
}

/**
 * Until the import has committed rows it has not published, or has ended;
 * `sender` tells its rows from those a killed import left before.
 */
async function untilWriting(running: { exitCode: number | null }, sender?: string): Promise<void> {
	while (hiddenRows(sender) === 0 && running.exitCode === null) await Bun.sleep(5);
}

function loadingImports(): number {
	return (
		reader.query("SELECT count(*) AS n FROM fax_imports WHERE state = 'loading'").get() as { n: number }
	).n;
}

/**
 * Pauses the import (SIGSTOP) once it has written its first rows and has many
 * transactions left: a signal sent now is taken before the last one, however
 * fast the machine (a quiet one imports 150,000 records in 0.8 s). The stops
 * begin only once it has registered its import, right before its first rows:
 * stopped every few milliseconds through its reading too, it never got far
 * enough to write at a load average of 15.
 */
async function pauseWhileWriting(
	running: { kill(signal: NodeJS.Signals): void; exitCode: number | null },
	sender: string,
): Promise<void> {
	while (loadingImports() === 0 && running.exitCode === null) await Bun.sleep(1);
	for (;;) {
		running.kill("SIGSTOP");
		const written = hiddenRows(sender);
		if (written > 0) {
			expect(written).toBeLessThan(RECORDS / 2);
			return;
		}
		expect(running.exitCode).toBeNull();
		running.kill("SIGCONT");
		await Bun.sleep(10);
	}
}

/**
 * Another process's write lock, taken in one of the gaps the import leaves
 * between its transactions: SQLite's own busy wait sleeps past them.
 */
async function takeWriteLock(): Promise<Database> {
	const holder = new Database(server.databasePath);
	holder.exec("PRAGMA busy_timeout = 0");
	for (;;) {
		try {
			holder.exec("BEGIN IMMEDIATE");
			return holder;
		} catch {
			await Bun.sleep(1);
		}
	}
}

async function listedFrom(sender: string): Promise<unknown[]> {
	return (await (await server.request(`/api/faxes?from=${encodeURIComponent(sender)}`)).json()) as unknown[];
}

describe("a large fax import", () => {
	test("writes in short transactions: ingest and remove started meanwhile succeed, and the import shows all at once", async () => {
		const file = await recordsFile("large.json", "BULK 1", RECORDS, "fax_bulk1");
		const running = startImport(file);
		await untilWriting(running);
		expect(await listedFrom("BULK1")).toEqual([]);
		expect((await server.request("/api/faxes/fax_bulk1")).status).toBe(404);
		// The busy timeout of before this design: the import once held the lock 18 s.
		const env = { ...server.env, BUSY_TIMEOUT_MS: "5000" };
		const [ingest, remove] = await Promise.all([
			runFax(["ingest", pdf, "--source", "phone", "--sender", "DURING 1"], env),
			runFax(["remove", "fax_keep1"], env),
		]);
		expect([ingest.code, ingest.stderr]).toEqual([0, ""]);
		expect(remove).toEqual({ code: 0, stdout: "removed fax_keep1\n", stderr: "" });
		const { stdout, stderr, code } = await outputOf(running);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		expect(stdout).toMatch(
			new RegExp(
				`^imported ${RECORDS} faxes and 0 removed faxes from ${file} in \\d+(\\.\\d)? s \\(longest write transaction \\d+ ms\\)\n$`,
			),
		);
		// The server answers from memory: the rows it passed over while hidden are there too.
		const newest = reader
			.query("SELECT slug FROM faxes WHERE sender = 'BULK 1' ORDER BY received_at DESC, id DESC LIMIT 100")
			.all() as { slug: string }[];
		const answer = (await (await server.request("/api/faxes?from=BULK1&limit=100")).json()) as {
			slug: string;
		}[];
		expect(answer.map((fax) => fax.slug)).toEqual(newest.map((row) => row.slug));
		expect((await server.request("/api/faxes/fax_bulk1")).status).toBe(200);
		expect(await listedFrom("DURING1")).toHaveLength(1);
		expect((await server.request("/api/faxes/fax_keep1")).status).toBe(410);
		expect(imports()).toEqual([{ state: "published" }]);
	}, 180_000);

	test("killed half-way, it leaves nothing visible, and the next purge deletes what it wrote", async () => {
		const file = await recordsFile("killed.json", "BULK 2", RECORDS, "fax_killed1");
		const running = startImport(file);
		await untilWriting(running);
		running.kill("SIGKILL");
		await running.exited;
		expect(await listedFrom("BULK2")).toEqual([]);
		expect((await server.request("/api/faxes/fax_killed1")).status).toBe(404);
		expect(imports()).toContainEqual({ state: "loading" });
		expect(await runFax(["purge"], server.env)).toEqual({
			code: 0,
			stdout: "purged 0 faxes past retention\n",
			stderr: "",
		});
		expect(imports()).toEqual([{ state: "published" }]);
		expect(reader.query("SELECT count(*) AS n FROM faxes WHERE sender = 'BULK 2'").get()).toEqual({ n: 0 });
		// Its slugs were never published, so they are free again.
		const again = await runFax(["import", file], server.env);
		expect(again.code).toBe(0);
		expect((await server.request("/api/faxes/fax_killed1")).status).toBe(200);
	}, 180_000);

	test("an import of 50,000 records killed at random moments, 10 times: never half visible, and the purge leaves nothing behind", async () => {
		const COUNT = 50_000;
		const visible = (sender: string) =>
			(
				reader
					.query(
						`SELECT count(*) AS n FROM faxes WHERE sender = ? AND (import_id IS NULL OR EXISTS
						 (SELECT 1 FROM fax_imports WHERE fax_imports.id = import_id AND state = 'published'))`,
					)
					.get(sender) as { n: number }
			).n;
		const stored = (sender: string) =>
			(reader.query("SELECT count(*) AS n FROM faxes WHERE sender = ?").get(sender) as { n: number }).n;
		/** The database and the API show all of the import or none of it. */
		const wholeOrNothing = async (sender: string, slug: string) => {
			expect([0, COUNT]).toContain(visible(sender));
			expect([0, 20]).toContain((await listedFrom(sender.replace(" ", ""))).length);
			expect([200, 404]).toContain((await server.request(`/api/faxes/${slug}`)).status);
		};
		// An import left alone, timed from its first written rows: reading and
		// checking take most of its life, so each kill lands a random time after
		// the rows of its own run appear, within the write phase timed here
		// (counted from the rows, the kills land there however loaded the machine).
		const timed = await recordsFile("kill-0.json", "KILL 0", COUNT, "fax_kill0");
		const alone = startImport(timed);
		await untilWriting(alone, "KILL 0");
		const writingFrom = performance.now();
		expect((await outputOf(alone)).code).toBe(0);
		const writing = performance.now() - writingFrom;
		expect(visible("KILL 0")).toBe(COUNT);
		const rounds: string[] = [];
		for (let round = 1; round <= 10; round++) {
			const [sender, slug] = [`KILL ${round}`, `fax_kill${round}`];
			const file = await recordsFile(`kill-${round}.json`, sender, COUNT, slug);
			const running = startImport(file);
			await untilWriting(running, sender);
			const delay = Math.floor(Math.random() * writing);
			const killAt = performance.now() + delay;
			while (performance.now() < killAt && running.exitCode === null) await wholeOrNothing(sender, slug);
			running.kill("SIGKILL");
			const code = await running.exited;
			const hidden = stored(sender) - visible(sender);
			await wholeOrNothing(sender, slug);
			rounds.push(
				`${delay} ms: ${code === 0 ? "finished first" : `killed, ${hidden} rows written and hidden`}`,
			);
		}
		expect((await runFax(["purge"], server.env)).code).toBe(0);
		expect(hiddenRows()).toBe(0);
		expect(imports().filter(({ state }) => state !== "published")).toEqual([]);
		for (let round = 1; round <= 10; round++) expect(stored(`KILL ${round}`)).toBe(visible(`KILL ${round}`));
		console.log(
			`imports of ${COUNT} records (writing for ${Math.round(writing)} ms left alone) killed after their first rows + ${rounds.join("; ")}`,
		);
	}, 300_000);

	test("a purge whose wall clock stepped an hour ahead leaves the live import alone", async () => {
		const file = await recordsFile("stepped.json", "BULK 4", RECORDS, "fax_stepped1");
		const running = startImport(file);
		await untilWriting(running);
		// Paused between two of its transactions, so the purge finds it loading and the lock free.
		for (;;) {
			running.kill("SIGSTOP");
			const probe = new Database(server.databasePath);
			probe.exec("PRAGMA busy_timeout = 0");
			const free = (() => {
				try {
					probe.exec("BEGIN IMMEDIATE");
					probe.exec("ROLLBACK");
					return true;
				} catch {
					return false;
				}
			})();
			probe.close();
			if (free) break;
			running.kill("SIGCONT");
			await Bun.sleep(1);
		}
		const clock = steppedClock(server.dir);
		clock.stepTo(3600);
		try {
			expect(await runFax(["purge"], { ...server.env, ...clock.env })).toEqual({
				code: 0,
				stdout: "purged 0 faxes past retention\n",
				stderr: "",
			});
			expect(imports()).toContainEqual({ state: "loading" });
		} finally {
			running.kill("SIGCONT");
		}
		const { stderr, code } = await outputOf(running);
		expect([code, stderr]).toEqual([0, ""]);
		expect((await server.request("/api/faxes/fax_stepped1")).status).toBe(200);
	}, 180_000);

	test("failing half-way, it deletes what it wrote and says so in one line", async () => {
		const file = await recordsFile("failing.json", "BULK 3", RECORDS, "fax_failed1");
		const running = startImport(file, { BUSY_TIMEOUT_MS: "1000" });
		await untilWriting(running);
		// Held past the import's busy timeout, released before its clean-up gives up too: in
		// real time, since SQLite's busy handler in the importing process waits by its own clock.
		const holder = await takeWriteLock();
		await Bun.sleep(1500);
		holder.exec("ROLLBACK");
		holder.close();
		const { stdout, stderr, code } = await outputOf(running);
		expect({ stdout, stderr, code }).toEqual({
			stdout: "",
			stderr: `import: ${file}: the database stayed locked by another writer for 1 s (BUSY_TIMEOUT_MS); nothing was imported\n`,
			code: 1,
		});
		expect(await listedFrom("BULK3")).toEqual([]);
		expect(reader.query("SELECT count(*) AS n FROM faxes WHERE sender = 'BULK 3'").get()).toEqual({ n: 0 });
		expect(imports().filter((entry) => entry.state !== "published")).toEqual([]);
	}, 180_000);
});

describe("a large fax import stopped by the operator", () => {
	test.each(["SIGINT", "SIGTERM"] as const)(
		"on %s it deletes what it wrote and says so in one line",
		async (name) => {
			const file = await recordsFile(`stopped-${name}.json`, `BULK ${name}`, RECORDS, `fax_${name}`);
			const running = startImport(file);
			await pauseWhileWriting(running, `BULK ${name}`);
			running.kill(name);
			running.kill("SIGCONT");
			const { stdout, stderr, code } = await outputOf(running);
			expect({ stdout, stderr, code }).toEqual({
				stdout: "",
				stderr: `import: ${file}: stopped by ${name}; nothing was imported\n`,
				code: 1,
			});
			expect((await server.request(`/api/faxes/fax_${name}`)).status).toBe(404);
			expect(reader.query("SELECT count(*) AS n FROM faxes WHERE sender = ?").get(`BULK ${name}`)).toEqual({
				n: 0,
			});
			expect(imports().filter((entry) => entry.state !== "published")).toEqual([]);
		},
		180_000,
	);
});

describe("import progress", () => {
	test("on a terminal: a live line of records validated and written, rate and time left, then the summary", async () => {
		const file = await recordsFile("terminal.json", "BULK 4", RECORDS, "fax_terminal1");
		const child = Bun.spawn(
			["script", "-qec", `${process.execPath} bin/fax.ts import ${file}`, "/dev/null"],
			{
				cwd: ROOT,
				env: childEnv({ ...server.env, COLUMNS: "200" }),
				stdin: "ignore",
				stdout: "pipe",
				stderr: "pipe",
			},
		);
		const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		expect(code).toBe(0);
		const count = RECORDS.toLocaleString("en-US");
		const redraws = output.split("\r\x1b[K");
		expect(redraws[1]).toBe(`import: validated 0/${count} | written 0`);
		expect(redraws).toContainEqual(
			expect.stringMatching(
				new RegExp(
					`^import: validated ${count}/${count} \\| written [\\d,]+ \\| [\\d,]+/s \\| \\d+(\\.\\d)? s left$`,
				),
			),
		);
		// The live line is cleared before the summary, which is the last line.
		expect(redraws.at(-1)).toMatch(
			new RegExp(
				`^imported ${RECORDS} faxes and 0 removed faxes from ${file} in \\d+(\\.\\d)? s \\(longest write transaction \\d+ ms\\)\r\n$`,
			),
		);
	}, 180_000);

	test("not on a terminal: the summary line alone", async () => {
		const file = await recordsFile("piped.json", "BULK 5", 5000, "fax_piped1");
		const result = await runFax(["import", file], server.env);
		expect(result.stderr).toBe("");
		expect(result.stdout).toMatch(
			new RegExp(
				`^imported 5000 faxes and 0 removed faxes from ${file} in \\d+(\\.\\d)? s \\(longest write transaction \\d+ ms\\)\n$`,
			),
		);
	}, 180_000);
});
