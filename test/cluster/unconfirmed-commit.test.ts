// A primary in synchronous mode with no standby to confirm its commits
// (synchronous_standby_names names one that never connects, as Patroni's
// strict mode does with every standby away): `fax ingest` fails within
// COMMIT_CONFIRM_MS and says why, holds no lock once it has failed, keeps the
// files of a commit that may still land, and is not acknowledged until a
// standby has the fax; once one does, each fax is listed exactly once and the
// disk agrees with the database.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import { COMMIT_CONFIRM_MS } from "../../lib/db/postgres/engine.ts";
import { type PostgresServer, startPostgres } from "../../testkit/postgres.ts";
import { makeTempDir, runFax } from "../../testkit/server.ts";

const TIFF = join(import.meta.dir, "../../fixtures/ingest/fax-g3-2d.tif");
const UNCONFIRMED =
	"ingest: no standby confirmed the commit within 10 s (synchronous replication); it is kept on the " +
	"primary and listed once a standby has it; hand the fax over again under the same receipt key\n";

let postgres: PostgresServer;
const dir = makeTempDir();
let env: Record<string, string>;

beforeAll(async () => {
	postgres = await startPostgres();
	env = {
		DATABASE_URL: await postgres.createDatabase(),
		DATABASE_PATH: join(dir, "unused.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
	};
}, 60_000);
afterAll(async () => {
	await postgres.stop();
	rmSync(dir, { recursive: true, force: true });
});

async function synchronousStandby(name: string): Promise<void> {
	const sql = new Bun.SQL(postgres.url());
	await sql.unsafe(`ALTER SYSTEM SET synchronous_standby_names = '${name}'`);
	await sql.unsafe("SELECT pg_reload_conf()");
	await sql.close();
}

async function ingest(key: string) {
	const began = performance.now();
	const result = await runFax(["ingest", TIFF, "--source", "phone", "--receipt-key", key], env);
	return { ...result, ms: performance.now() - began };
}

/** The slugs the database lists, and the slugs whose PDF and thumbnail are on this host's disk. */
async function diskAndDatabase() {
	const store = new FaxStore(
		await openEngine({ databaseUrl: env.DATABASE_URL as string, databasePath: "", busyTimeoutMs: 2000 }),
	);
	const listed = (await store.list({ after: 0, sender: { kind: "any" }, limit: 100 })).map((fax) => fax.slug);
	await store.close();
	const files = readdirSync(join(dir, "storage/faxes"));
	const onDisk = [...new Set(files.map((name) => name.replace(/(-thumb\.jpg|\.pdf)$/, "")))];
	return { listed: listed.sort(), onDisk: onDisk.sort(), files: files.length };
}

test("with no standby to confirm, an ingest fails within the bound, says why, keeps its files and is listed once a standby returns", async () => {
	const first = await ingest("before");
	expect([first.code, first.stderr]).toEqual([0, ""]);
	await synchronousStandby("gone");

	for (const key of ["k1", "k2", "k1"]) {
		const failed = await ingest(key);
		expect([key, failed.code, failed.stderr]).toEqual([key, 1, UNCONFIRMED]);
		// The lock of the ingest before is gone: no one waits for another writer's 30 s (BUSY_TIMEOUT_MS).
		expect(failed.ms).toBeGreaterThanOrEqual(COMMIT_CONFIRM_MS);
		expect(failed.ms).toBeLessThan(COMMIT_CONFIRM_MS + 15_000);
	}
	// Both commits are on the primary: their files stay.
	const waiting = await diskAndDatabase();
	expect(waiting.listed.length).toBe(3);
	expect(waiting.onDisk).toEqual(waiting.listed);

	await synchronousStandby("");
	const slugs: string[] = [];
	for (const key of ["k1", "k2"]) {
		const again = await ingest(key);
		expect([again.code, again.stderr]).toEqual([
			0,
			`ingest: already listed as ${again.stdout.trim()} (receipt key ${key})\n`,
		]);
		slugs.push(again.stdout.trim());
	}
	const after = await diskAndDatabase();
	expect(after.listed).toEqual(waiting.listed);
	expect(after.listed).toEqual([first.stdout.trim(), ...slugs].sort());
	expect(after.onDisk).toEqual(after.listed);
	expect(after.files).toBe(2 * 3);
}, 120_000);
