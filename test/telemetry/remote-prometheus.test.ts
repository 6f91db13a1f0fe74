// A Prometheus on another host, as docs/operations/alerts.md ("Alerts") sets it up:
// the fax host's admin listener (ADMIN_HOST) and replicate.sh's metrics
// (LITESTREAM_METRICS_ADDR) on an address that host reaches, and
// deploy/prometheus/prometheus.yml with those targets. The other host is a
// network namespace of the test's own, joined by a veth pair; needs root.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../lib/db/index.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { freePort } from "../../testkit/ports.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = makeTempDir();
const ns = `tfprom${process.pid}`;
const net = `10.213.${process.pid % 256}`;
const FAX_HOST = `${net}.1`;
const PROMETHEUS_HOST = `${net}.2`;
const veth = [`tfva${process.pid % 100000}`, `tfvb${process.pid % 100000}`];

function ip(...args: string[]): void {
	const result = Bun.spawnSync(["ip", ...args], { stderr: "pipe" });
	if (result.exitCode !== 0) throw new Error(`ip ${args.join(" ")}: ${result.stderr.toString()}`);
}

beforeAll(() => {
	ip("netns", "add", ns);
	ip("link", "add", veth[0] ?? "", "type", "veth", "peer", "name", veth[1] ?? "");
	ip("link", "set", veth[1] ?? "", "netns", ns);
	ip("addr", "add", `${FAX_HOST}/30`, "dev", veth[0] ?? "");
	ip("link", "set", veth[0] ?? "", "up");
	ip("-n", ns, "addr", "add", `${PROMETHEUS_HOST}/30`, "dev", veth[1] ?? "");
	ip("-n", ns, "link", "set", veth[1] ?? "", "up");
	ip("-n", ns, "link", "set", "lo", "up");
});

afterAll(() => {
	// Deleting the namespace deletes its end of the pair, and with it the other.
	Bun.spawnSync(["ip", "netns", "del", ns]);
	rmSync(dir, { recursive: true, force: true });
});

/** deploy/prometheus/prometheus.yml with the fax host's addresses as targets, scraping every second. */
function prometheusConfig(adminAddr: string, litestreamAddr: string): string {
	const shipped = readFileSync(join(ROOT, "deploy/prometheus/prometheus.yml"), "utf8");
	const config = join(dir, "prometheus.yml");
	writeFileSync(
		config,
		shipped
			.replace('"127.0.0.1:3001"', `"${adminAddr}"`)
			.replace('"127.0.0.1:9092"', `"${litestreamAddr}"`)
			.replaceAll("15s", "1s"),
	);
	copyFileSync(join(ROOT, "deploy/prometheus/alerts.yml"), join(dir, "alerts.yml"));
	return config;
}

async function query(
	url: string,
	expr: string,
): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
	const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`).catch(() => null);
	if (!response?.ok) return [];
	return ((await response.json()) as { data: { result: [] } }).data.result;
}

test("a Prometheus in another network namespace scrapes the server and the replication watchdog", async () => {
	const db = join(dir, "faxes.sqlite");
	openDatabase(db).close();
	const env = {
		DATABASE_PATH: db,
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		ADMIN_HOST: FAX_HOST,
		ADMIN_PORT: String(await freePort()),
		LITESTREAM_REPLICA_URL: `file://${join(dir, "replica")}`,
		LITESTREAM_METRICS_ADDR: `${FAX_HOST}:${await freePort()}`,
	};
	const settings = join(dir, "testfax.env");
	writeSettingsFile(settings, env);
	const server = await startServerProcess(env);
	const replication = Bun.spawn([join(ROOT, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: settings }),
		stdout: "ignore",
		stderr: "ignore",
	});
	const port = await freePort();
	mkdirSync(join(dir, "tsdb"));
	const prometheus = Bun.spawn(
		[
			..."ip netns exec".split(" "),
			ns,
			"prometheus",
			`--config.file=${prometheusConfig(`${FAX_HOST}:${env.ADMIN_PORT}`, env.LITESTREAM_METRICS_ADDR)}`,
			`--storage.tsdb.path=${join(dir, "tsdb")}`,
			`--web.listen-address=${PROMETHEUS_HOST}:${port}`,
		],
		{ stdout: "ignore", stderr: "ignore" },
	);
	try {
		const url = `http://${PROMETHEUS_HOST}:${port}`;
		let up: Record<string, string> = {};
		for (let tries = 0; tries < 150 && !(up.testfax === "1" && up.litestream === "1"); tries++) {
			await Bun.sleep(200);
			up = Object.fromEntries((await query(url, "up")).map((r) => [r.metric.job ?? "", r.value[1]]));
		}
		expect(up).toEqual({ testfax: "1", litestream: "1" });
		const stall = await query(url, "testfax_replication_stall_seconds");
		expect(stall.map((r) => [r.metric.instance, r.metric.db, r.value[1]])).toEqual([
			[env.LITESTREAM_METRICS_ADDR, db, "0"],
		]);
		expect((await query(url, 'testfax_held_requests{job="testfax"}')).length).toBe(1);
	} finally {
		prometheus.kill("SIGTERM");
		replication.kill("SIGTERM");
		server.child.kill("SIGTERM");
		await Promise.all([prometheus.exited, replication.exited, server.child.exited]);
	}
}, 60_000);
