// The purge on PostgreSQL, where every instance of every host runs it: one
// process of the cluster purges at a time, a standby leaves it to the
// primary by itself, and a primary gone read-only mid-failover is told in one
// line, not a failure per run.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import { captureLog, eventsOf } from "../../testkit/log.ts";
import { type PostgresServer, startPostgres, startStandby } from "../../testkit/postgres.ts";
import { runFax, startTestServer } from "../../testkit/server.ts";

let primary: PostgresServer;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
beforeAll(async () => {
	primary = await startPostgres();
}, 60_000);
afterAll(async () => {
	for (const cleanup of cleanups.reverse()) await cleanup();
	await primary.stop();
});

async function storeOn(url: string): Promise<FaxStore> {
	const store = new FaxStore(await openEngine({ databasePath: "", databaseUrl: url, busyTimeoutMs: 2000 }));
	cleanups.push(() => store.close());
	return store;
}

test("two purgers of one database take turns", async () => {
	const url = await primary.createDatabase();
	const [one, two] = [await storeOn(url), await storeOn(url)];
	const first = await one.purgeTurn();
	expect(typeof first).toBe("function");
	expect(await two.purgeTurn()).toBe("taken");
	await (first as () => Promise<void>)();
	const second = await two.purgeTurn();
	expect(typeof second).toBe("function");
	expect(await one.purgeTurn()).toBe("taken");
	await (second as () => Promise<void>)();
});

test("on a standby the purge leaves the database to the primary, and `fax purge` says so", async () => {
	const url = await primary.createDatabase();
	await storeOn(url);
	const standby = await startStandby(primary);
	cleanups.push(() => standby.stop());
	const standbyUrl = standby.url(new URL(url).pathname.slice(1));
	expect(await (await storeOn(standbyUrl)).purgeTurn()).toBe("standby");
	const purged = await runFax(["purge"], { DATABASE_URL: standbyUrl, STORAGE_DIR: "/nonexistent/storage" });
	expect([purged.code, purged.stdout, purged.stderr]).toEqual([
		0,
		"purged nothing: the database is a standby, the primary's purge replays here\n",
		"",
	]);
}, 60_000);

test("a primary gone read-only: the instance's purge says so in one line, not once per run", async () => {
	const url = await primary.createDatabase();
	await storeOn(url);
	const name = new URL(url).pathname.slice(1);
	const sql = new Bun.SQL(primary.url());
	await sql.unsafe(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
	await sql.close();
	const { logger, lines } = captureLog();
	const server = await startTestServer({ env: { DATABASE_URL: url, PURGE_INTERVAL: "1" }, logger });
	cleanups.push(() => server.stop());
	// The purge at start and two more runs, each failing, each counted.
	const readOnlyFailures = async () => {
		const metrics = await (await server.admin("/metrics")).text();
		return Number(/testfax_database_failures_total\{trouble="read-only"\} (\d+)/.exec(metrics)?.[1]);
	};
	const deadline = Date.now() + 30_000;
	while ((await readOnlyFailures()) < 3 && Date.now() < deadline) await Bun.sleep(100);
	expect(await readOnlyFailures()).toBeGreaterThanOrEqual(3);
	expect(eventsOf(lines)).toEqual([
		"database read-only (a standby, or a primary mid-failover): writes fail until it takes them again " +
			"(cannot execute UPDATE in a read-only transaction)",
	]);
	expect((await server.request("/api/faxes")).status).toBe(200);
}, 60_000);
