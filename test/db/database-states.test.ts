// What an instance on PostgreSQL says while its database is not usable: one
// line when a trouble begins and one when it ends, a count of every failure
// in /metrics, never a stack per request; readiness follows the database
// without stopping the event loop. A standby whose schema does not exist yet
// is waited for, not fatal, and the instance starts by itself once the
// primary has made it.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import { captureLog, eventsOf } from "../../testkit/log.ts";
import { type PostgresServer, startPostgres, startStandby } from "../../testkit/postgres.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

let primary: PostgresServer;
const stops: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
	primary = await startPostgres();
}, 60_000);
afterAll(async () => {
	for (const stop of stops.reverse()) await stop();
	await primary.stop();
});

const UNAVAILABLE = "database unavailable: requests that need it answer 503 until it answers again";

async function started(server: TestServer): Promise<TestServer> {
	stops.push(() => server.stop());
	return server;
}

const failures = async (server: TestServer) => {
	const metrics = await (await server.admin("/metrics")).text();
	return Number(/testfax_database_failures_total\{trouble="unavailable"\} (\d+)/.exec(metrics)?.[1]);
};

test("PostgreSQL stopped under an instance: 503s, one line when it goes and one when it is back, every failure counted", async () => {
	const { logger, lines } = captureLog();
	const server = await started(
		await startTestServer({ env: { DATABASE_URL: await primary.createDatabase() }, logger }),
	);
	expect((await server.admin("/readyz")).status).toBe(200);
	await primary.halt();
	const statuses: number[] = [];
	for (let i = 0; i < 20; i++) statuses.push((await server.request("/api/faxes")).status);
	expect(statuses).toEqual(Array.from({ length: 20 }, () => 503));
	const ready = await server.admin("/readyz");
	expect([ready.status, ((await ready.json()) as { status: string }).status]).toEqual([503, "unready"]);
	// The 20 requests and the probe; the once-a-second probe of an unavailable database may add some.
	expect(await failures(server)).toBeGreaterThanOrEqual(21);
	expect(eventsOf(lines)).toEqual([expect.stringMatching(new RegExp(`^${UNAVAILABLE} \\(`))]);

	await primary.resume();
	const deadline = Date.now() + 20_000;
	while ((await server.admin("/readyz")).status !== 200 && Date.now() < deadline) await Bun.sleep(100);
	expect((await server.request("/api/faxes")).status).toBe(200);
	expect(eventsOf(lines).slice(1)).toEqual(["database answers again"]);
	expect(lines.find((line) => line.msg === "database answers again")?.was).toBe("unavailable");
}, 60_000);

test("an instance on a standby whose schema does not exist yet waits in one line, and starts once the primary has made it", async () => {
	const url = await primary.createDatabase();
	const standby = await startStandby(primary);
	stops.push(() => standby.stop());
	const { logger, lines } = captureLog();
	const name = new URL(url).pathname.slice(1);
	const starting = startTestServer({ env: { DATABASE_URL: standby.url(name) }, logger });
	// Two tries of OPEN_RETRY_MS at least: the second, with the same reason, says nothing.
	await Bun.sleep(5000);
	expect(eventsOf(lines)).toEqual([
		"waiting for the database before listening (this node is a standby and its database has no schema yet: " +
			"the primary makes it (an instance or `fax check` whose DATABASE_URL or DATABASE_WRITE_URL names the primary), then this node replays it)",
	]);
	const store = new FaxStore(await openEngine({ databasePath: "", databaseUrl: url, busyTimeoutMs: 2000 }));
	await store.close();
	const server = await started(await starting);
	expect(eventsOf(lines).slice(1)).toEqual(["the database is usable: starting"]);
	expect((await server.admin("/readyz")).status).toBe(200);
	expect(await (await server.request("/api/faxes")).text()).toBe("[]");
}, 60_000);

test("a list held with wait=30 on an instance whose PostgreSQL stops is answered 503 within 2 s, for the front to retry on another instance", async () => {
	const server = await started(
		await startTestServer({ env: { DATABASE_URL: await primary.createDatabase() } }),
	);
	const current = await server.request("/api/faxes?limit=100");
	const held = server
		.request("/api/faxes?limit=100&wait=30", {
			headers: { "if-none-match": current.headers.get("etag") ?? "" },
		})
		.then((answer) => ({ status: answer.status, at: performance.now() }));
	await Bun.sleep(300);
	const stoppingAt = performance.now();
	await primary.halt();
	const answer = await held;
	await primary.resume();
	expect(answer.status).toBe(503);
	expect(answer.at - stoppingAt).toBeLessThan(2000);
}, 60_000);
