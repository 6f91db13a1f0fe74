// `npm run test:cluster`: three PostgreSQL 15 nodes under Patroni with etcd
// and HAProxy (deploy/cluster/), two API instances on the standbys, Redis for
// the count. Under a steady `fax ingest` through HAProxy, the primary's
// PostgreSQL and Patroni are SIGKILLed: every fax acknowledged before is
// listed after on every instance with the same files, re-deliveries list
// nothing twice, reads on the standbys go on, a wait held on a standby wakes
// for a fax ingested through the new primary, and the old primary comes back
// as a standby that follows. The standbys' hosts never ingest: they serve
// every file from the database, byte for byte and with the validators of the
// host that has it on disk.

import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import { type Cluster, type ClusterNode, startCluster, until } from "../../testkit/cluster.ts";
import { runCommand } from "../../testkit/processes.ts";
import { startRedisServer } from "../../testkit/redis-server.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const ROOT = join(import.meta.dir, "../..");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const UA = { "User-Agent": "cluster-test/1.0" };
const root = makeTempDir();
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
	for (const cleanup of cleanups.reverse()) await cleanup();
	rmSync(root, { recursive: true, force: true });
}, 120_000);

interface Instance {
	url: string;
	env: Record<string, string>;
}

async function apiOn(databaseUrl: string, storageDir: string, redisUrl: string): Promise<Instance> {
	const env = {
		DATABASE_URL: databaseUrl,
		STORAGE_DIR: storageDir,
		DATABASE_PATH: join(storageDir, "unused.sqlite"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		REDIS_URL: redisUrl,
		RATE_LIMIT_PER_MINUTE: "1000000",
	};
	const server = await startServerProcess(env);
	cleanups.push(async () => {
		server.child.kill("SIGTERM");
		await server.child.exited;
	});
	return { url: server.url, env };
}

/** What an instance answers for a fax's file: its validators and a hash of its bytes. */
async function servedFile(instance: Instance, file: string) {
	const response = await fetch(`${instance.url}/cdn/faxes/${file}`);
	return {
		status: response.status,
		etag: response.headers.get("etag"),
		lastModified: response.headers.get("last-modified"),
		hash: Bun.hash(await response.arrayBuffer()),
	};
}

const listed = async (instance: Instance): Promise<string[]> => {
	const response = await fetch(`${instance.url}/api/faxes?limit=100`, { headers: UA });
	return ((await response.json()) as { slug: string }[]).map((row) => row.slug);
};

/** Hands fax `key` over until it is acknowledged (exit 0), as a receiver re-delivers; returns its slug. */
async function deliver(env: Record<string, string>, key: string, deadline: number): Promise<string | null> {
	while (Date.now() < deadline) {
		const result = await runCommand(
			[process.execPath, "bin/fax.ts", "ingest", TIFF, "--source", "phone", "--receipt-key", key],
			{ cwd: ROOT, env },
		);
		if (result.code === 0) return result.stdout.trim();
		await Bun.sleep(500);
	}
	return null;
}

/** The environment of the host that ingests, through HAProxy; the schema made first. */
async function ingestHostEnv(cluster: Cluster) {
	new FaxStore(
		await openEngine({ databasePath: "", databaseUrl: cluster.primaryUrl, busyTimeoutMs: 5000 }),
	).close();
	return {
		DATABASE_URL: cluster.primaryUrl,
		DATABASE_PATH: join(root, "unused-ingest.sqlite"),
		STORAGE_DIR: join(root, "storage-ingest"),
		SEED_DEMO: "0",
		BUSY_TIMEOUT_MS: "5000",
	};
}

/** Lists on every instance every 50 ms until the returned function is called; it gives the statuses. */
function readAlong(apis: Instance[]): () => Promise<number[]> {
	const statuses: number[] = [];
	let reading = true;
	const reader = (async () => {
		while (reading) {
			for (const api of apis) {
				const response = await fetch(`${api.url}/api/faxes`, { headers: UA }).catch(() => null);
				statuses.push(response?.status ?? 0);
				await response?.arrayBuffer();
			}
			await Bun.sleep(50);
		}
	})();
	return async () => {
		reading = false;
		await reader;
		return statuses;
	};
}

/** A wait held on `standby` answers with a fax ingested meanwhile; returns its slug. */
async function expectWaitWakes(standby: Instance, ingestEnv: Record<string, string>): Promise<string> {
	const current = await fetch(`${standby.url}/api/faxes?limit=100`, { headers: UA });
	const held = fetch(`${standby.url}/api/faxes?limit=100&wait=30`, {
		headers: { ...UA, "if-none-match": current.headers.get("etag") ?? "" },
	});
	await current.arrayBuffer();
	await Bun.sleep(300);
	const woken = await deliver(ingestEnv, "k:wake", Date.now() + 60_000);
	const answer = await held;
	expect(answer.status).toBe(200);
	expect(((await answer.json()) as { slug: string }[]).map((row) => row.slug)).toContain(woken as string);
	return woken as string;
}

/**
 * `api` lists exactly `expected`, and serves every file from the database as
 * the ingesting host's instance does from its disk: the same bytes as the
 * files ingest wrote, the same validators.
 */
async function expectServedAlike(
	api: Instance,
	ingestHost: Instance,
	expected: string[],
	storageDir: string,
) {
	const slugs = await until(
		"every acknowledged fax on the instance",
		async () => {
			const list = await listed(api);
			return expected.every((slug) => list.includes(slug)) ? list : null;
		},
		30_000,
	);
	expect(slugs.sort()).toEqual(expected);
	for (const slug of expected) {
		for (const file of [`${slug}.pdf`, `${slug}-thumb.jpg`]) {
			const original = await Bun.file(join(storageDir, "faxes", file)).bytes();
			expect(await servedFile(api, file)).toEqual(await servedFile(ingestHost, file));
			expect((await servedFile(api, file)).hash).toBe(Bun.hash(original));
		}
	}
}

/** The old primary, started again, streams as a standby and has the next fax. */
async function expectFollows(cluster: Cluster, node: ClusterNode, ingestEnv: Record<string, string>) {
	cluster.restart(node);
	await until("the old primary streaming as a standby", async () =>
		(await cluster.members()).find(
			(m) =>
				m.name === node.name && m.role !== "leader" && m.state === "running" && typeof m.lag === "number",
		),
	);
	const last = await deliver(ingestEnv, "k:last", Date.now() + 60_000);
	const rejoined = new FaxStore(
		await openEngine({ databasePath: "", databaseUrl: cluster.nodeUrl(node), busyTimeoutMs: 5000 }),
	);
	await until("the fax on the old primary", async () => rejoined.lookup(last as string, 0).state === "found");
	rejoined.close();
}

test("a primary killed mid-ingest: nothing acknowledged is lost, standbys serve on, the old primary follows", async () => {
	const cluster = await startCluster();
	cleanups.push(() => cluster.stop());
	const redis = await startRedisServer();
	cleanups.push(() => redis.close());
	const ingestEnv = await ingestHostEnv(cluster);
	const members = await cluster.members();
	const leader = cluster.nodes.find((node) => node.name === members.find((m) => m.role === "leader")?.name);
	const standbys = cluster.nodes.filter((node) => node !== leader);
	const apis = await Promise.all(
		standbys.map((node) => apiOn(cluster.nodeUrl(node), join(root, `storage-${node.name}`), redis.url)),
	);
	// The instance of the host that ingests, with the files on its disk.
	const ingestHost = await apiOn(cluster.primaryUrl, ingestEnv.STORAGE_DIR, redis.url);

	// Reads on both standby instances, all along.
	const stopReading = readAlong(apis);

	const acknowledged = new Map<string, string>();
	let next = 0;
	const ingestUntil = async (count: number) => {
		while (acknowledged.size < count) {
			const key = `k:${next++}`;
			const slug = await deliver(ingestEnv, key, Date.now() + 120_000);
			if (slug === null) throw new Error(`fax ${key} was never acknowledged`);
			acknowledged.set(key, slug);
		}
	};
	await ingestUntil(3);
	// The kill lands while the next ingests run.
	const during = ingestUntil(8);
	await Bun.sleep(300);
	const killedAt = performance.now();
	cluster.kill(leader as ClusterNode);
	await during;
	const failoverMs = performance.now() - killedAt;
	const after = await until("a new leader", async () =>
		(await cluster.members()).find((m) => m.role === "leader" && m.name !== leader?.name),
	);
	const readStatuses = await stopReading();
	expect(readStatuses.filter((status) => status !== 200)).toEqual([]);

	// A wait held on the instance whose node is still a standby wakes for a fax through the new primary.
	const standby = apis[standbys.findIndex((node) => node.name !== after.name)] as Instance;
	acknowledged.set("k:wake", await expectWaitWakes(standby, ingestEnv));

	// Re-deliveries of every key list nothing new.
	for (const [key, slug] of acknowledged)
		expect(await deliver(ingestEnv, key, Date.now() + 60_000)).toBe(slug);
	const expected = [...acknowledged.values()].sort();
	for (const api of apis) await expectServedAlike(api, ingestHost, expected, ingestEnv.STORAGE_DIR);

	await expectFollows(cluster, leader as ClusterNode, ingestEnv);
	console.log(
		`failover: ${acknowledged.size} faxes acknowledged, ingest back ${(failoverMs / 1000).toFixed(1)} s after the kill, ${readStatuses.length} reads on the standbys all 200`,
	);
}, 600_000);
