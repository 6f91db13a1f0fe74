// A host of the cluster has one settings file: DATABASE_URL names its own
// node (a hot standby, say) for reads, DATABASE_WRITE_URL the primary's
// route for writes. Every writing command run with it reaches the primary,
// and the host's instance, reading its own node, shows the result once
// replayed. Without DATABASE_WRITE_URL the same ingest meets the standby's
// refusal, which is what the three-host drill met.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type PostgresServer, startPostgres, startStandby } from "../../testkit/postgres.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

const TIF = join(import.meta.dir, "../../fixtures/ingest/fax-g3-2d.tif");

let primary: PostgresServer;
let standby: PostgresServer;
let server: TestServer;
let settings: Record<string, string>;

beforeAll(async () => {
	primary = await startPostgres();
	const primaryUrl = await primary.createDatabase();
	standby = await startStandby(primary);
	const standbyUrl = standby.url(new URL(primaryUrl).pathname.slice(1));
	// The database has no schema yet: the instance makes it on the primary, then waits for its own node to replay it.
	server = await startTestServer({ env: { DATABASE_URL: standbyUrl, DATABASE_WRITE_URL: primaryUrl } });
	settings = { ...server.env };
}, 120_000);

afterAll(async () => {
	await server?.stop();
	await standby?.stop();
	await primary?.stop();
});

async function untilStatus(path: string, status: number): Promise<number> {
	const deadline = Date.now() + 10_000;
	let seen = (await server.request(path)).status;
	while (Date.now() < deadline && seen !== status) {
		await Bun.sleep(20);
		seen = (await server.request(path)).status;
	}
	return seen;
}

test("the instance on a standby with DATABASE_WRITE_URL migrated the primary and serves its own node", async () => {
	expect([
		settings.DATABASE_URL === settings.DATABASE_WRITE_URL,
		(await server.admin("/readyz")).status,
	]).toEqual([false, 200]);
	expect(await (await server.request("/api/faxes")).text()).toBe("[]");
});

test("ingest, remove and purge run with the host's settings reach the primary; the standby's instance shows each once replayed", async () => {
	const ingested = await runFax(
		["ingest", TIF, "--source", "phone", "--sender", "+1 555 090 0001"],
		settings,
	);
	expect([ingested.code, ingested.stderr]).toEqual([0, ""]);
	const slug = ingested.stdout.trim();
	expect(await untilStatus(`/api/faxes/${slug}`, 200)).toBe(200);
	const removed = await runFax(["remove", slug], settings);
	expect([removed.code, removed.stderr]).toEqual([0, ""]);
	expect(await untilStatus(`/api/faxes/${slug}`, 410)).toBe(410);
	const purged = await runFax(["purge"], settings);
	expect([purged.code, purged.stderr]).toEqual([0, ""]);
});

test("without DATABASE_WRITE_URL the same ingest is refused by the standby, in one line, and nothing is listed", async () => {
	const { DATABASE_WRITE_URL: _primary, ...ownNodeOnly } = settings;
	const refused = await runFax(
		["ingest", TIF, "--source", "phone", "--sender", "+1 555 090 0002"],
		ownNodeOnly,
	);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toContain("read-only transaction");
	expect(refused.stderr.trim().split("\n")).toHaveLength(1);
	expect(await (await server.request("/api/faxes?from=%2B15550900002")).text()).toBe("[]");
});
