// The whole site of the cluster tests on one machine: the three nodes of
// testkit/cluster.ts, each with an API instance in its namespace whose
// DATABASE_URL names its own node's PostgreSQL, one Redis for the shared
// count in the root namespace (on the bridge), and the public HAProxy in
// the root namespace in front of the three instances, whose file is the
// combined one of the runbook: deploy/cluster/haproxy-config.sh's route to
// the primary, then deploy/cluster/front-haproxy-config.sh's front. Needs root.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openEngine } from "../lib/db/index.ts";
import { childEnv, realClockEnv } from "./child-env.ts";
import { type Cluster, type ClusterNode, PORTS, startCluster, until } from "./cluster.ts";
import { makeNetwork, type Network } from "./netns.ts";
import { freePort } from "./ports.ts";
import { requireTool } from "./processes.ts";
import { dieWithParent } from "./redis-server.ts";
import { pings } from "./redis-topology.ts";
import { startServerProcess } from "./server-process.ts";

const DEPLOY = join(import.meta.dir, "../deploy/cluster");
/** Redis's password: with one, Redis's protected mode (on) lets the nodes on the bridge in. */
const REDIS_PASSWORD = "redis-test-password";
/** The ports of each node's API instance, in its namespace. */
export const API_PORTS = { public: 3000, admin: 3001 };

export interface Instance {
	node: ClusterNode;
	/** Its public listener, on its node's address. */
	url: string;
	adminUrl: string;
	child: Bun.Subprocess;
	/** Its log (standard output): a line a request. */
	log: string;
}

export interface Site {
	network: Network;
	cluster: Cluster;
	instances: Instance[];
	/** The public address: the front HAProxy, on loopback. */
	publicUrl: string;
	/** The front HAProxy's log: a line a request, and each instance's going down and up. */
	frontLog: string;
	/** The front HAProxy's stats socket (the test's own addition to its file), for `show info` and `show stat`. */
	frontSocket: string;
	/** The environment of `fax ingest` on `via`: its host's settings, whose DATABASE_WRITE_URL leads through its node's HAProxy to the primary. */
	ingestEnv(via: ClusterNode): Record<string, string>;
	/** The STORAGE_DIR of `fax ingest`: the only disk that has the faxes' files. */
	ingestStorage: string;
	stop(): Promise<void>;
}

/** Runs every step, even past a failing one, then fails naming each that failed. */
async function runAll(what: string, steps: (() => unknown)[]): Promise<void> {
	const failed: string[] = [];
	for (const step of steps) {
		try {
			await step();
		} catch (error) {
			failed.push(String(error));
		}
	}
	if (failed.length > 0) throw new Error(`${what}: ${failed.join("; ")}`);
}

async function stopChild(child: Bun.Subprocess): Promise<void> {
	child.kill("SIGTERM");
	await child.exited;
}

/**
 * A redis-server without persistence on the root namespace's address on the
 * bridge, as docs/operations/cluster.md sets Debian's up: bound to the
 * private address, protected mode on (Redis 7's default), a password.
 */
async function startRedis(network: Network, dir: string): Promise<{ child: Bun.Subprocess; url: string }> {
	requireTool("redis-server");
	const port = await freePort();
	const log = Bun.file(join(dir, "redis.log"));
	const child = Bun.spawn(
		[
			...dieWithParent,
			"redis-server",
			...["--port", String(port), "--bind", network.gateway, "--save", "", "--appendonly", "no"],
			...["--requirepass", REDIS_PASSWORD],
		],
		{ env: realClockEnv(), stdin: "ignore", stdout: log, stderr: log },
	);
	await until(
		"Redis",
		() => pings({ host: network.gateway, port, password: REDIS_PASSWORD }).catch(() => false),
		10_000,
	);
	return { child, url: `redis://:${REDIS_PASSWORD}@${network.gateway}:${port}` };
}

async function startInstance(
	node: ClusterNode,
	cluster: Cluster,
	site: { dir: string; redisUrl: string; network: Network },
): Promise<Instance> {
	const env = {
		// The runbook's settings file: reads on the node's own PostgreSQL, writes through its route to the primary.
		DATABASE_URL: cluster.nodeUrl(node),
		DATABASE_WRITE_URL: cluster.primaryUrl(node),
		DATABASE_PATH: join(site.dir, `unused-${node.name}.sqlite`),
		STORAGE_DIR: join(site.dir, `storage-${node.name}`),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		REDIS_URL: site.redisUrl,
		RATE_LIMIT_PER_MINUTE: "1000000",
		// The front HAProxy reaches the nodes from the root namespace's address.
		TRUST_PROXY: site.network.gateway,
		HOST: node.address,
		PORT: String(API_PORTS.public),
		ADMIN_HOST: node.address,
		ADMIN_PORT: String(API_PORTS.admin),
	};
	const log = join(site.dir, `api-${node.name}.log`);
	const server = await startServerProcess(env, {
		wrapper: [...node.host.exec, ...dieWithParent],
		logFile: log,
	});
	return { node, url: server.url, adminUrl: server.adminUrl, child: server.child, log };
}

/** The output of one of deploy/cluster's scripts with `env`. */
function configOf(script: string, env: Record<string, string>): string {
	const config = Bun.spawnSync([join(DEPLOY, script)], { env: childEnv(env), stderr: "pipe" });
	if (config.exitCode !== 0) throw new Error(`${script}: ${config.stderr.toString()}`);
	return config.stdout.toString();
}

/**
 * The front's HAProxy file as the runbook makes a node's: the route to the
 * primary, then the public front. A second file of the test's own adds the
 * stats socket.
 */
async function startFront(instances: Instance[], dir: string) {
	requireTool("haproxy");
	const port = await freePort();
	const INSTANCES = instances
		.map(({ node }) => `${node.name}:${node.address}:${API_PORTS.public}:${API_PORTS.admin}`)
		.join(" ");
	const NODES = instances
		.map(({ node }) => `${node.name}:${node.address}:${PORTS.postgres}:${PORTS.patroni}`)
		.join(" ");
	const routeEnv = { LISTEN_HOST: "127.0.0.1", PRIMARY_PORT: String(await freePort()), NODES };
	const frontEnv = { LISTEN_HOST: "127.0.0.1", PUBLIC_PORT: String(port), INSTANCES };
	const config = configOf("haproxy-config.sh", routeEnv) + configOf("front-haproxy-config.sh", frontEnv);
	writeFileSync(join(dir, "front-haproxy.cfg"), config);
	const socket = join(dir, "front-haproxy.sock");
	writeFileSync(join(dir, "front-stats.cfg"), `global\n    stats socket ${socket} mode 600\n`);
	const log = join(dir, "front-haproxy.log");
	const files = ["-f", join(dir, "front-haproxy.cfg"), "-f", join(dir, "front-stats.cfg")];
	const child = Bun.spawn([...dieWithParent, "haproxy", ...files, "-db"], {
		stdin: "ignore",
		stdout: Bun.file(log),
		stderr: Bun.file(join(dir, "front-haproxy.err")),
	});
	const url = `http://127.0.0.1:${port}`;
	try {
		await until(
			"the public address",
			async () => (await fetch(`${url}/api/faxes`).catch(() => null))?.ok,
			10_000,
		);
	} catch (error) {
		await stopChild(child);
		throw new Error(`${error}: ${await Bun.file(join(dir, "front-haproxy.err")).text()}`);
	}
	return { child, url, log, socket };
}

type Undo = (() => unknown)[];

/**
 * The site, its logs and each instance's storage in `dir`: network, cluster,
 * the schema (made through the primary: the instances on the standbys could
 * not), Redis, the instances, the front HAProxy. A start that fails stops
 * what it had started and removes the network again.
 */
export async function startSite(dir: string): Promise<Site> {
	const network = makeNetwork();
	const undo: Undo = [() => network.remove()];
	try {
		const cluster = await startCluster(network);
		undo.push(() => cluster.stop());
		await new FaxStore(
			await openEngine({ databasePath: "", databaseUrl: cluster.primaryUrl(), busyTimeoutMs: 5000 }),
		).close();
		const redis = await startRedis(network, dir);
		undo.push(() => stopChild(redis.child));
		const instances: Instance[] = [];
		for (const node of cluster.nodes) {
			const instance = await startInstance(node, cluster, { dir, redisUrl: redis.url, network });
			instances.push(instance);
			undo.push(() => stopChild(instance.child));
		}
		const front = await startFront(instances, dir);
		undo.push(() => stopChild(front.child));
		return {
			network,
			cluster,
			instances,
			publicUrl: front.url,
			frontLog: front.log,
			frontSocket: front.socket,
			ingestStorage: join(dir, "storage-ingest"),
			// The settings file of `via`'s host, as its instance has it: the writes reach the primary.
			ingestEnv: (via) => ({
				DATABASE_URL: cluster.nodeUrl(via),
				DATABASE_WRITE_URL: cluster.primaryUrl(via),
				DATABASE_PATH: join(dir, "unused-ingest.sqlite"),
				STORAGE_DIR: join(dir, "storage-ingest"),
				SEED_DEMO: "0",
				BUSY_TIMEOUT_MS: "5000",
			}),
			stop: () => runAll("stopping the cluster site", [...undo].reverse()),
		};
	} catch (error) {
		await runAll("undoing a failed start", undo.reverse()).catch((undoError) => console.error(undoError));
		throw error;
	}
}
