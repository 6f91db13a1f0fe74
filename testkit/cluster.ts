import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PostgresDatabase } from "../lib/db/index.ts";
import { childEnv } from "./child-env.ts";
import { freePort } from "./ports.ts";
import { asUser, tempDir } from "./postgres.ts";
import { dieWithParent } from "./redis-server.ts";

const DEPLOY = join(import.meta.dir, "../deploy/cluster");
export const FAX_PASSWORD = "fax-test-password";
const SUPERUSER_PASSWORD = "superuser-test-password";

export interface ClusterNode {
	name: string;
	pgPort: number;
	restPort: number;
	dataDir: string;
	/** Patroni's process; null while stopped. */
	patroni: Bun.Subprocess | null;
}

export interface Member {
	name: string;
	role: "leader" | "sync_standby" | "replica";
	state: string;
	lag?: number | string;
}

export interface Cluster {
	nodes: ClusterNode[];
	/** The URL of the fax database through HAProxy: always the primary. */
	primaryUrl: string;
	/** The URL of the fax database on one node, whatever its role. */
	nodeUrl(node: ClusterNode): string;
	members(): Promise<Member[]>;
	/** SIGKILL of the node's Patroni and of its PostgreSQL (the postmaster of postmaster.pid). */
	kill(node: ClusterNode): void;
	/** Starts the node's Patroni again on its data folder. */
	restart(node: ClusterNode): void;
	stop(): Promise<void>;
}

function spawnPatroni(dir: string, node: ClusterNode, etcdHosts: string): Bun.Subprocess {
	const env = {
		NODE_NAME: node.name,
		NODE_HOST: "127.0.0.1",
		PG_PORT: String(node.pgPort),
		REST_PORT: String(node.restPort),
		DATA_DIR: node.dataDir,
		ETCD_HOSTS: etcdHosts,
		SUPERUSER_PASSWORD,
		REPLICATION_PASSWORD: "replication-test-password",
		FAX_PASSWORD,
		SOCKET_DIR: dir,
	};
	const log = Bun.file(join(dir, `${node.name}.log`));
	return Bun.spawn(
		[...asUser, ...dieWithParent, join(dir, "patroni-node.sh"), join(dir, `${node.name}.yml`)],
		{
			// Patroni's Python children change into the directory they were started in.
			cwd: dir,
			env: childEnv(env),
			stdin: "ignore",
			stdout: log,
			stderr: log,
		},
	);
}

async function members(restPort: number): Promise<Member[]> {
	try {
		const response = await fetch(`http://127.0.0.1:${restPort}/cluster`, {
			signal: AbortSignal.timeout(1000),
		});
		return ((await response.json()) as { members: Member[] }).members;
	} catch {
		return [];
	}
}

/** Polls `check` every 200 ms until it holds, or fails after `timeoutMs`. */
export async function until<T>(
	what: string,
	check: () => Promise<T | undefined | null | false>,
	timeoutMs = 90_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await Bun.sleep(200);
	}
}

async function startEtcd(dir: string): Promise<{ child: Bun.Subprocess; hosts: string }> {
	const [client, peer] = [await freePort(), await freePort()];
	const env = {
		MEMBER_NAME: "etcd1",
		MEMBER_DATA_DIR: join(dir, "etcd"),
		CLIENT_URL: `http://127.0.0.1:${client}`,
		PEER_URL: `http://127.0.0.1:${peer}`,
		INITIAL_CLUSTER: `etcd1=http://127.0.0.1:${peer}`,
	};
	const log = Bun.file(join(dir, "etcd.log"));
	const child = Bun.spawn([...dieWithParent, join(DEPLOY, "etcd.sh")], {
		env: childEnv(env),
		stdout: log,
		stderr: log,
	});
	await until(
		"etcd",
		async () => (await fetch(`http://127.0.0.1:${client}/health`).catch(() => null))?.ok,
		30_000,
	);
	return { child, hosts: `127.0.0.1:${client}` };
}

async function startHaproxy(
	dir: string,
	nodes: ClusterNode[],
): Promise<{ child: Bun.Subprocess; port: number }> {
	const port = await freePort();
	const NODES = nodes.map((node) => `${node.name}:127.0.0.1:${node.pgPort}:${node.restPort}`).join(" ");
	const config = Bun.spawnSync([join(DEPLOY, "haproxy-config.sh")], {
		env: childEnv({ PRIMARY_PORT: String(port), NODES }),
	});
	writeFileSync(join(dir, "haproxy.cfg"), config.stdout);
	const child = Bun.spawn([...dieWithParent, "haproxy", "-f", join(dir, "haproxy.cfg"), "-db"], {
		stdout: "ignore",
		stderr: Bun.file(join(dir, "haproxy.log")),
	});
	return { child, port };
}

async function stopChild(child: Bun.Subprocess): Promise<void> {
	child.kill("SIGTERM");
	await child.exited;
}

function psql(dir: string, port: number, sql: string): void {
	const result = Bun.spawnSync(
		[
			...asUser,
			"/usr/lib/postgresql/15/bin/psql",
			"-h",
			dir,
			"-p",
			String(port),
			"-U",
			"postgres",
			"-d",
			"postgres",
			"-qc",
			sql,
		],
		{ cwd: dir, env: childEnv({}) },
	);
	if (result.exitCode !== 0) throw new Error(`psql: ${result.stderr.toString()}`);
}

/** What a start that failed half-way had started, to be stopped in reverse. */
type Undo = (() => Promise<unknown>)[];

async function stopPatroni(nodes: ClusterNode[]): Promise<void> {
	for (const node of nodes) {
		node.patroni?.kill("SIGTERM");
		await node.patroni?.exited;
	}
}

/**
 * The three nodes' Patroni started on free ports; resolves with the first
 * leader once all stream, and fails at once, with its log, when one exits.
 * The postgres user runs deploy/cluster/patroni-node.sh as copied into the
 * cluster's folder, from that folder: a checkout under /root (0700, as a CI
 * clone there was) is out of its reach, and every node then failed with
 * "Permission denied".
 */
async function startNodes(
	dir: string,
	etcdHosts: string,
	undo: Undo,
): Promise<{ nodes: ClusterNode[]; leader: ClusterNode }> {
	copyFileSync(join(DEPLOY, "patroni-node.sh"), join(dir, "patroni-node.sh"));
	chmodSync(join(dir, "patroni-node.sh"), 0o755);
	const nodes: ClusterNode[] = [];
	for (const name of ["node1", "node2", "node3"]) {
		nodes.push({
			name,
			pgPort: await freePort(),
			restPort: await freePort(),
			dataDir: join(dir, name),
			patroni: null,
		});
	}
	for (const node of nodes) node.patroni = spawnPatroni(dir, node, etcdHosts);
	undo.push(() => stopPatroni(nodes));
	const ready = (list: Member[]) =>
		list.length === 3 &&
		list.some((m) => m.role === "leader" && m.state === "running") &&
		list.some((m) => m.role === "sync_standby" && m.state === "running") &&
		list.every((m) => m.state === "running" && (m.role === "leader" || typeof m.lag === "number"));
	// Bootstrapping and two base backups took more than 90 s once on a loaded 2-core machine.
	const first = await until(
		"three nodes, a leader and two streaming standbys",
		async () => {
			const gone = nodes.find((node) => node.patroni !== null && node.patroni.exitCode !== null);
			if (gone !== undefined) {
				const log = readFileSync(join(dir, `${gone.name}.log`), "utf8");
				throw new Error(`${gone.name}'s Patroni exited: ${log.trim().split("\n").slice(-3).join(" | ")}`);
			}
			const list = await members(nodes[0]?.restPort ?? 0);
			return ready(list) ? list : null;
		},
		240_000,
	);
	const leader = nodes.find((node) => node.name === first.find((m) => m.role === "leader")?.name);
	if (leader === undefined) throw new Error("no leader among the nodes");
	return { nodes, leader };
}

/** Runs `check` on a new connection to `url`; false when it cannot connect or fails. */
function probe(url: string, check: (db: PostgresDatabase) => boolean): boolean {
	const db = new PostgresDatabase(url);
	try {
		return check(db);
	} catch {
		return false;
	} finally {
		db.close();
	}
}

/**
 * HAProxy counts every node up until its first checks say otherwise: round
 * robin over three, six new connections in a row on the primary mean the
 * standbys are out.
 */
async function untilOnlyPrimary(url: string): Promise<void> {
	let onPrimary = 0;
	await until(
		"HAProxy leading to the primary only",
		async () => {
			const primary = probe(
				url,
				(db) => db.run("SELECT pg_is_in_recovery() AS standby").rows[0]?.standby === false,
			);
			onPrimary = primary ? onPrimary + 1 : 0;
			return onPrimary >= 6;
		},
		30_000,
	);
}

/**
 * Three PostgreSQL 15 nodes under Patroni (deploy/cluster/patroni-node.sh),
 * one etcd member (deploy/cluster/etcd.sh), HAProxy in front
 * (deploy/cluster/haproxy-config.sh), all on free loopback ports; the fax
 * database `faxes` owned by `testfax`, with its schema.
 */
export async function startCluster(): Promise<Cluster> {
	const dir = tempDir();
	const undo: Undo = [];
	try {
		return await clusterIn(dir, undo);
	} catch (error) {
		for (const step of undo.reverse()) await step();
		Bun.spawnSync(["rm", "-rf", dir]);
		throw error;
	}
}

async function clusterIn(dir: string, undo: Undo): Promise<Cluster> {
	const etcd = await startEtcd(dir);
	undo.push(() => stopChild(etcd.child));
	const { nodes, leader } = await startNodes(dir, etcd.hosts, undo);
	psql(dir, leader.pgPort, "CREATE DATABASE faxes OWNER testfax");
	const haproxy = await startHaproxy(dir, nodes);
	undo.push(() => stopChild(haproxy.child));
	const url = (port: number) => `postgres://testfax:${FAX_PASSWORD}@127.0.0.1:${port}/faxes`;
	await untilOnlyPrimary(url(haproxy.port));
	// Each standby has the database once it has replayed its creation.
	for (const node of nodes) {
		await until(
			`the fax database on ${node.name}`,
			async () => probe(url(node.pgPort), (db) => db.run("SELECT 1 AS ok").rows.length === 1),
			60_000,
		);
	}
	const alive = () => nodes.find((node) => node.patroni !== null);
	return {
		nodes,
		primaryUrl: url(haproxy.port),
		nodeUrl: (node) => url(node.pgPort),
		members: async () => members(alive()?.restPort ?? 0),
		kill(node) {
			node.patroni?.kill("SIGKILL");
			node.patroni = null;
			const postmaster = Number(readFileSync(join(node.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
			process.kill(postmaster, "SIGKILL");
		},
		restart(node) {
			node.patroni = spawnPatroni(dir, node, etcd.hosts);
		},
		async stop() {
			haproxy.child.kill("SIGTERM");
			await stopPatroni(nodes);
			etcd.child.kill("SIGTERM");
			await Promise.all([haproxy.child.exited, etcd.child.exited]);
			Bun.spawnSync(["rm", "-rf", dir]);
		},
	};
}
