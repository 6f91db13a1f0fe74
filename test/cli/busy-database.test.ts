import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../lib/db/index.ts";
import { faxRecord } from "../../testkit/fixtures.ts";
import { captureLog, eventsOf } from "../../testkit/log.ts";
import { runFax, startTestServer, type TestServer, useTestServers } from "../../testkit/server.ts";
import { textPdf } from "../document/make-files.ts";

let server: TestServer;
let pdf: string;
let records: string;
beforeAll(async () => {
	server = await startTestServer({
		faxes: [faxRecord({ slug: "fax_busy1" }), faxRecord({ slug: "fax_busy2" })],
	});
	pdf = join(server.dir, "fax.pdf");
	await Bun.write(pdf, await textPdf([[595.28, 841.89]]));
	records = join(server.dir, "records.json");
	await Bun.write(records, JSON.stringify([faxRecord({ slug: "fax_busyImport" })]));
});
afterAll(() => server.stop());

/** Another process's write transaction, holding the lock until released. */
function holdWriteLock(path: string): { release(): void } {
	const other = new Database(path);
	other.exec("BEGIN IMMEDIATE");
	return {
		release() {
			other.exec("ROLLBACK");
			other.close();
		},
	};
}

let held: { release(): void } | undefined;
afterEach(() => {
	held?.release();
	held = undefined;
});

const LOCKED = "the database stayed locked by another writer for 0.3 s (BUSY_TIMEOUT_MS)";

describe("a writer meeting a lock held longer than BUSY_TIMEOUT_MS", () => {
	test("gives up with one line and exit 1, and nothing is written", async () => {
		const env = { ...server.env, BUSY_TIMEOUT_MS: "300" };
		held = holdWriteLock(server.databasePath);
		const [ingest, remove, purge, imported] = await Promise.all([
			runFax(["ingest", pdf, "--source", "phone", "--sender", "BUSY 1"], env),
			runFax(["remove", "fax_busy1"], env),
			runFax(["purge"], env),
			runFax(["import", records], env),
		]);
		held.release();
		held = undefined;
		expect(ingest).toEqual({
			code: 1,
			stdout: "",
			stderr: `ingest: the fax cannot be stored (STORAGE_DIR, DATABASE_PATH): ${LOCKED}; nothing was recorded\n`,
		});
		expect(remove).toEqual({ code: 1, stdout: "", stderr: `fax remove: ${LOCKED}\n` });
		expect(purge).toEqual({ code: 1, stdout: "", stderr: `fax purge: ${LOCKED}\n` });
		expect(imported).toEqual({
			code: 1,
			stdout: "",
			stderr: `import: ${records}: ${LOCKED}; nothing was imported\n`,
		});
		expect((await server.request("/api/faxes/fax_busy1")).status).toBe(200);
		expect((await server.request("/api/faxes/fax_busyImport")).status).toBe(404);
		expect(await (await server.request("/api/faxes?from=BUSY1")).json()).toEqual([]);
	}, 20_000);
});

describe("a writer meeting a lock released within BUSY_TIMEOUT_MS", () => {
	test("waits for it and succeeds", async () => {
		held = holdWriteLock(server.databasePath);
		const running = Promise.all([
			runFax(["ingest", pdf, "--source", "phone", "--sender", "BUSY 2"], server.env),
			runFax(["remove", "fax_busy2"], server.env),
		]);
		// In real time: SQLite's busy handler in the child processes sleeps and retries by its own clock.
		await Bun.sleep(1500);
		held.release();
		held = undefined;
		const [ingest, remove] = await running;
		expect([ingest.code, ingest.stderr]).toEqual([0, ""]);
		expect(remove).toEqual({ code: 0, stdout: "removed fax_busy2\n", stderr: "" });
		expect(await (await server.request("/api/faxes?from=BUSY2")).json()).toHaveLength(1);
		expect((await server.request("/api/faxes/fax_busy2")).status).toBe(410);
	}, 20_000);
});

describe("the server's own purge", () => {
	const start = useTestServers();

	test("waits for a busy database without holding up answers", async () => {
		const { logger, lines } = captureLog();
		const path = join(server.dir, "purge-server.sqlite");
		openDatabase(path).close();
		held = holdWriteLock(path);
		const busy = await start({
			env: { DATABASE_PATH: path, PURGE_INTERVAL: "3600", BUSY_TIMEOUT_MS: "2000" },
			logger,
		});
		const response = await busy.request("/api/faxes");
		expect(response.status).toBe(200);
		const purgeEvents = () => eventsOf(lines).filter((event) => event.startsWith("purge"));
		expect(purgeEvents()).toEqual([]);
		while (purgeEvents().length === 0) await Bun.sleep(50);
		expect(lines.find((line) => line.msg?.startsWith("purge"))).toMatchObject({
			level: "error",
			msg: "purge failed; retrying at the next interval",
			err: "the database stayed locked by another writer for 2 s (BUSY_TIMEOUT_MS)",
			retry_in_s: 3600,
		});
	}, 20_000);
});
