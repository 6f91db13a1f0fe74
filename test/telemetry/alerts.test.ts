// deploy/prometheus: every alert rule fires and stays quiet as its tests say
// (promtool), the example configurations load, and every metric a rule reads
// is one a running server or Litestream really exposes.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { receiverQueues } from "../../lib/queues/index.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { freePort } from "../../testkit/ports.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

const ROOT = join(import.meta.dir, "../..");
const PROMETHEUS = join(ROOT, "deploy/prometheus");
const redis = useRedisServer();
const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The metric names the rules' expressions read (the watchdog's `testfax_replication_` under "litestream_"). */
async function ruleMetricNames(prefix: string): Promise<string[]> {
	const rules = await Bun.file(join(PROMETHEUS, "alerts.yml")).text();
	const exprs = rules
		.split("\n")
		.filter((line) => !line.trimStart().startsWith("#") && !line.includes("summary:"));
	const text = exprs.join("\n");
	const watchdog: string[] = text.match(/\btestfax_replication_[a-z_]+/g) ?? [];
	const names = (text.match(new RegExp(`\\b${prefix}[a-z_]+`, "g")) ?? []).filter(
		(name) => !watchdog.includes(name),
	);
	return [...new Set(prefix === "litestream_" ? [...names, ...watchdog] : names)].sort();
}

function exposedNames(metrics: string): Set<string> {
	return new Set(metrics.split("\n").flatMap((line) => /^([a-z_]+)[{ ]/.exec(line)?.[1] ?? []));
}

test("promtool: each rule fires where its test says and stays quiet where the metrics are healthy", async () => {
	const result = await runCommand(["promtool", "test", "rules", "alerts.test.yml"], {
		cwd: PROMETHEUS,
		env: {},
	});
	expect(result.stdout + result.stderr).toContain("SUCCESS");
	expect(result.code).toBe(0);
	const names = (await Bun.file(join(PROMETHEUS, "alerts.yml")).text()).match(/alert: \w+/g) ?? [];
	const tested = await Bun.file(join(PROMETHEUS, "alerts.test.yml")).text();
	for (const name of names) expect(tested).toContain(`alertname: ${name.slice("alert: ".length)}`);
	expect(names.length).toBe(9);
});

test("the example Prometheus and Alertmanager configurations load", async () => {
	const prometheus = await runCommand(["promtool", "check", "config", "prometheus.yml"], {
		cwd: PROMETHEUS,
		env: {},
	});
	expect(prometheus.code).toBe(0);
	const alertmanager = await runCommand(["amtool", "check-config", "alertmanager.yml"], {
		cwd: PROMETHEUS,
		env: {},
	});
	expect(alertmanager.stdout).toContain("SUCCESS");
	expect(alertmanager.code).toBe(0);
});

test("every testfax_ metric the rules read is exposed by a running server", async () => {
	const recvq = join(dir, "recvq");
	mkdirSync(recvq);
	const fax = join(recvq, "fax000000007.tif");
	writeFileSync(fax, "II*\0");
	const arrived = Math.floor(Date.now() / 1000) - 120;
	utimesSync(fax, arrived, arrived);
	const server = await startServerProcess({
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		REDIS_URL: redis.server.url,
		RATE_LIMIT_PREFIX: redis.uniquePrefix(),
		RECEIVER_RECVQ: recvq,
		WAIT_MAX_HELD: "7",
	});
	try {
		const metrics = await (await fetch(`${server.adminUrl}/metrics`)).text();
		const exposed = exposedNames(metrics);
		const used = await ruleMetricNames("testfax_");
		expect(used.length).toBe(9);
		for (const name of used) expect(exposed).toContain(name);
		expect(metrics).toContain("testfax_held_requests_limit 7\n");
		expect(metrics).toContain('testfax_receiver_queue_readable{receiver="hylafax"} 1\n');
		expect(metrics).toContain('testfax_receiver_waiting{receiver="hylafax"} 1\n');
		const oldest = Number(
			/testfax_receiver_oldest_waiting_seconds\{receiver="hylafax"\} (\d+)/.exec(metrics)?.[1],
		);
		expect(oldest).toBeGreaterThanOrEqual(120);
		expect(oldest).toBeLessThan(180);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
	}
});

test("a fax whose receipt is recorded no longer waits; an unreadable queue reads as null", async () => {
	const recvq = join(dir, "recvq-listed");
	mkdirSync(recvq);
	const now = Math.floor(Date.now() / 1000);
	for (const [name, age] of [
		["fax000000001.tif", 900],
		["fax000000002.tif", 300],
	] as const) {
		writeFileSync(join(recvq, name), "II*\0");
		utimesSync(join(recvq, name), now - age, now - age);
	}
	const store = new FaxStore(openDatabase(join(dir, "receipts.sqlite")));
	const fax = {
		source: "phone",
		sender: null,
		received_at: now - 900,
		page_count: null,
		file_size: null,
	} as const;
	await store.insertReceived({ ...fax, slug: "fax_Listed01" }, `hylafax:fax000000001.tif:${now - 900}`);
	const read = receiverQueues(store, { recvqDir: recvq, postqueue: null });
	expect(await read(now)).toEqual([{ receiver: "hylafax", waiting: 1, oldestSeconds: 300 }]);
	const missing = receiverQueues(store, { recvqDir: join(dir, "no-such-queue"), postqueue: null });
	expect(await missing(now)).toEqual([{ receiver: "hylafax", waiting: null, oldestSeconds: null }]);
	// A postqueue that is not there, or fails (the mail system down), reads as unreadable too.
	for (const postqueue of [join(dir, "no-such-postqueue"), "/bin/false"]) {
		const failing = receiverQueues(store, { recvqDir: null, postqueue });
		expect(await failing(now)).toEqual([{ receiver: "postfix", waiting: null, oldestSeconds: null }]);
	}
});

test("every litestream_ and watchdog metric the rules read is exposed at LITESTREAM_METRICS_ADDR by replicate.sh", async () => {
	const db = join(dir, "replicated.sqlite");
	openDatabase(db).close();
	const port = await freePort();
	const settings = join(dir, "replication.env");
	writeSettingsFile(settings, {
		DATABASE_PATH: db,
		STORAGE_DIR: join(dir, "replicated-storage"),
		LITESTREAM_REPLICA_URL: `file://${join(dir, "replica")}`,
		LITESTREAM_METRICS_ADDR: `127.0.0.1:${port}`,
	});
	const replication = Bun.spawn([join(ROOT, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: settings }),
		stdout: "ignore",
		stderr: "ignore",
	});
	try {
		const used = await ruleMetricNames("litestream_");
		expect(used).toEqual(["litestream_sync_error_count", "testfax_replication_stall_seconds"]);
		let exposed = new Set<string>();
		for (let tries = 0; tries < 100 && !used.every((name) => exposed.has(name)); tries++) {
			await Bun.sleep(100);
			exposed = await fetch(`http://127.0.0.1:${port}/metrics`).then(
				async (response) => exposedNames(await response.text()),
				() => new Set<string>(),
			);
		}
		for (const name of used) expect(exposed).toContain(name);
	} finally {
		replication.kill("SIGTERM");
		expect(await replication.exited).toBe(0);
	}
});
