// Three PostgreSQL 15 hosts under Patroni on one machine, as the operations
// guide sets up three nodes ("Three nodes: Patroni, etcd, HAProxy"): each node a network namespace of
// its own (testkit/netns.ts) with one etcd member (deploy/cluster/etcd.sh),
// one Patroni node (deploy/cluster/patroni-node.sh) and one HAProxy leading
// to the primary (deploy/cluster/haproxy-config.sh). Each namespace has the
// ports to itself, so every node uses the same ones (PORTS). Needs root.
import {
	chmodSync,
	chownSync,
	closeSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { PostgresDatabase } from "../lib/db/index.ts";
import { childEnv } from "./child-env.ts";
import type { Host, Network } from "./netns.ts";
import { asUser, tempDir } from "./postgres.ts";
import { type CommandResult, outputOf, requireTool } from "./processes.ts";
import { dieWithParent } from "./redis-server.ts";

const DEPLOY = join(import.meta.dir, "../deploy/cluster");
export const FAX_PASSWORD = "fax-test-password";
const SUPERUSER_PASSWORD = "superuser-test-password";
/** The ports every node listens on, in its own namespace. */
export const PORTS = { postgres: 5432, patroni: 8008, etcdClient: 2379, etcdPeer: 2380, primary: 5000 };
/** Patroni's ttl (deploy/cluster/patroni-node.sh): a primary silent this long is replaced. */
export const TTL_SECONDS = 20;

export interface ClusterNode {
	name: string;
	host: Host;
	address: string;
	/** Its settings, logs and PostgreSQL socket; the postgres user's. */
	dir: string;
	dataDir: string;
	/** Patroni's process; null while stopped. */
	patroni: Bun.Subprocess | null;
}

export interface Member {
	name: string;
	role: "leader" | "sync_standby" | "replica";
	state: string;
	lag?: number | string;
	timeline?: number;
}

/** The nodes by role, while the cluster is whole. */
export interface Roles {
	leader: ClusterNode;
	syncStandby: ClusterNode;
	replica: ClusterNode;
}

export interface Cluster {
	nodes: ClusterNode[];
	/** The URL of the fax database through `via`'s HAProxy (node1's unless named): always the primary. */
	primaryUrl(via?: ClusterNode): string;
	/** The URL of the fax database on one node, whatever its role. */
	nodeUrl(node: ClusterNode): string;
	/** The members as the first node that answers sees them; [] when none does. */
	members(): Promise<Member[]>;
	/** Waits for a leader, a sync standby and a streaming replica, and names them. */
	roles(): Promise<Roles>;
	/**
	 * The status of the node's WAL receiver (pg_stat_wal_receiver, asked as
	 * the superuser over its socket): "streaming" on a standby that follows
	 * the primary, "" on a primary or a server that does not answer.
	 */
	walReceiver(node: ClusterNode): string;
	/** SIGKILL of the node's Patroni and of its PostgreSQL (the postmaster of postmaster.pid). */
	kill(node: ClusterNode): Promise<void>;
	/** Stops the node's Patroni (SIGTERM), which stops its PostgreSQL first. */
	stopNode(node: ClusterNode): Promise<void>;
	/** Starts the node's Patroni again on its data folder. */
	restart(node: ClusterNode): void;
	/** The node's host lost with its data and replaced (replaceHost); resolves once its Patroni is started. */
	replaceHost(node: ClusterNode): Promise<void>;
	/** `patronictl` with `node`'s settings (pause, resume, list...), with its output. */
	patronictl(node: ClusterNode, args: string[]): Promise<CommandResult>;
	/** deploy/cluster/switchover.sh from `leader` to `candidate`, as the runbook runs it, with its output. */
	switchover(leader: ClusterNode, candidate: ClusterNode): Promise<CommandResult>;
	stop(): Promise<void>;
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

/**
 * Runs `command` in `host`'s namespace, its output appended to `log`: a
 * process started again (a node's Patroni after a fault) writes after what
 * the one before it wrote, so the log holds the whole run.
 */
function spawnIn(
	host: Host,
	command: string[],
	log: string,
	options: { cwd?: string; env?: Record<string, string> } = {},
) {
	const fd = openSync(log, "a");
	try {
		return Bun.spawn([...host.exec, ...command], {
			cwd: options.cwd,
			env: childEnv(options.env),
			stdin: "ignore",
			stdout: fd,
			stderr: fd,
		});
	} finally {
		closeSync(fd);
	}
}

function spawnPatroni(node: ClusterNode, etcdHosts: string, network: Network): Bun.Subprocess {
	const env = {
		NODE_NAME: node.name,
		NODE_HOST: node.address,
		PG_PORT: String(PORTS.postgres),
		REST_PORT: String(PORTS.patroni),
		DATA_DIR: node.dataDir,
		ETCD_HOSTS: etcdHosts,
		SUPERUSER_PASSWORD,
		REPLICATION_PASSWORD: "replication-test-password",
		FAX_PASSWORD,
		ALLOW_NETWORK: network.subnet,
		CLUSTER_SCOPE: `testfax-${network.bridge}`,
	};
	// After the change of user, which clears a parent-death signal. Patroni's
	// Python children change into the directory they were started in.
	const command = [...asUser, ...dieWithParent, join(node.dir, "..", "patroni-node.sh")];
	return spawnIn(node.host, [...command, join(node.dir, "patroni.yml")], join(node.dir, "patroni.log"), {
		cwd: node.dir,
		env,
	});
}

async function membersOf(node: ClusterNode): Promise<Member[]> {
	try {
		const response = await fetch(`http://${node.address}:${PORTS.patroni}/cluster`, {
			signal: AbortSignal.timeout(1000),
		});
		return ((await response.json()) as { members: Member[] }).members;
	} catch {
		return [];
	}
}

interface EtcdCluster {
	dir: string;
	token: string;
	/** name=peer_url of every member. */
	initial: string;
}

const peerUrl = (node: ClusterNode) => `http://${node.address}:${PORTS.etcdPeer}`;
const clientUrl = (node: ClusterNode) => `http://${node.address}:${PORTS.etcdClient}`;

/** The node's etcd member, by deploy/cluster/etcd.sh: `state` new with the others, existing when it joins them. */
function spawnEtcd(node: ClusterNode, etcd: EtcdCluster, state: "new" | "existing"): Bun.Subprocess {
	return spawnIn(node.host, [...dieWithParent, join(DEPLOY, "etcd.sh")], join(node.dir, "etcd.log"), {
		env: {
			MEMBER_NAME: `etcd-${node.name}`,
			MEMBER_DATA_DIR: join(etcd.dir, `etcd-${node.name}`),
			CLIENT_URL: clientUrl(node),
			PEER_URL: peerUrl(node),
			INITIAL_CLUSTER: etcd.initial,
			INITIAL_CLUSTER_STATE: state,
			CLUSTER_TOKEN: etcd.token,
		},
	});
}

async function untilEtcdHealthy(node: ClusterNode): Promise<void> {
	await until(
		`etcd on ${node.name}`,
		async () => {
			const health = await fetch(`${clientUrl(node)}/health`).catch(() => null);
			return health?.ok && ((await health.json()) as { health: string }).health === "true";
		},
		30_000,
	);
}

/** Three etcd members, one on each node, as one cluster; resolves once it has a quorum. */
async function startEtcd(nodes: ClusterNode[], etcd: EtcdCluster): Promise<Bun.Subprocess[]> {
	const children = nodes.map((node) => spawnEtcd(node, etcd, "new"));
	for (const node of nodes) await untilEtcdHealthy(node);
	return children;
}

function startHaproxy(node: ClusterNode, nodes: ClusterNode[]): Bun.Subprocess {
	const NODES = nodes
		.map((other) => `${other.name}:${other.address}:${PORTS.postgres}:${PORTS.patroni}`)
		.join(" ");
	const config = Bun.spawnSync([join(DEPLOY, "haproxy-config.sh")], {
		env: childEnv({ LISTEN_HOST: node.address, PRIMARY_PORT: String(PORTS.primary), NODES }),
	});
	writeFileSync(join(node.dir, "haproxy.cfg"), config.stdout);
	return spawnIn(
		node.host,
		[...dieWithParent, "haproxy", "-f", join(node.dir, "haproxy.cfg"), "-db"],
		join(node.dir, "haproxy.log"),
	);
}

/**
 * One member at a time: stopped together, the leader spent 7 s trying to
 * hand its leadership to members that were stopping; one by one, 0.2 s.
 */
async function stopEtcd(members: Bun.Subprocess[]): Promise<void> {
	for (const member of members) await stopChild(member);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has ended. */
async function stopChild(child: Bun.Subprocess | null, graceMs = 30_000): Promise<void> {
	if (child === null) return;
	child.kill("SIGTERM");
	const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
	await child.exited;
	clearTimeout(timer);
}

/** Runs `sql` as the superuser over the node's socket (reachable while its network is cut); its output, unaligned. */
function psql(node: ClusterNode, sql: string): string {
	const result = Bun.spawnSync(
		[
			...asUser,
			"/usr/lib/postgresql/15/bin/psql",
			...["-h", node.dir, "-p", String(PORTS.postgres), "-U", "postgres", "-d", "postgres", "-qAtc", sql],
		],
		{ cwd: node.dir, env: childEnv({}), stdout: "pipe", stderr: "pipe" },
	);
	if (result.exitCode !== 0) throw new Error(`psql: ${result.stderr.toString()}`);
	return result.stdout.toString().trim();
}

/** A leader and two streaming standbys on its timeline, one of them synchronous. */
export function whole(list: Member[]): boolean {
	return (
		list.length === 3 &&
		list.some((m) => m.role === "leader" && m.state === "running") &&
		list.some((m) => m.role === "sync_standby") &&
		list.every((m) => m.role === "leader" || follows(m, list))
	);
}

/** A standby that Patroni sees running with a known lag. */
export const streams = (m: Member | undefined): boolean =>
	m !== undefined &&
	m.role !== "leader" &&
	(m.state === "streaming" || m.state === "running") &&
	typeof m.lag === "number";

/**
 * A standby that streams on the leader's timeline. An old primary back from
 * a cut first runs on its own old timeline, then Patroni stops it for
 * pg_rewind: running alone is not yet following.
 */
export const follows = (m: Member | undefined, list: Member[]): boolean =>
	streams(m) && m?.timeline === list.find((other) => other.role === "leader")?.timeline;

/** Fails at once, with the end of its log, when a node's Patroni has exited. */
function checkPatroniAlive(nodes: ClusterNode[]): void {
	const gone = nodes.find((node) => node.patroni !== null && node.patroni.exitCode !== null);
	if (gone === undefined) return;
	const log = readFileSync(join(gone.dir, "patroni.log"), "utf8");
	throw new Error(`${gone.name}'s Patroni exited: ${log.trim().split("\n").slice(-3).join(" | ")}`);
}

/** Runs `check` on a new connection to `url`; false when it cannot connect or fails. */
async function probe(url: string, check: (db: PostgresDatabase) => Promise<boolean>): Promise<boolean> {
	const db = new PostgresDatabase(url, { poolSize: 1 });
	try {
		return await check(db);
	} catch {
		return false;
	} finally {
		await db.close();
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
		`HAProxy (${url.replace(/:[^:@]*@/, "@")}) leading to the primary only`,
		async () => {
			const primary = await probe(
				url,
				async (db) => (await db.run("SELECT pg_is_in_recovery() AS standby")).rows[0]?.standby === false,
			);
			onPrimary = primary ? onPrimary + 1 : 0;
			return onPrimary >= 6;
		},
		30_000,
	);
}

/** The three nodes' folders under `dir`, each the postgres user's, and patroni-node.sh beside them. */
function nodesIn(dir: string, network: Network): ClusterNode[] {
	// The postgres user runs patroni-node.sh as copied here: a checkout under
	// /root (0700, as a CI clone there was) is out of its reach.
	copyFileSync(join(DEPLOY, "patroni-node.sh"), join(dir, "patroni-node.sh"));
	chmodSync(join(dir, "patroni-node.sh"), 0o755);
	const postgres = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString());
	return network.hosts.map((host) => {
		const nodeDir = join(dir, host.name);
		mkdirSync(nodeDir);
		if (asUser.length > 0) chownSync(nodeDir, postgres, -1);
		// The socket goes in the data folder's parent: one folder a node, since all use one port.
		return {
			name: host.name,
			host,
			address: host.address,
			dir: nodeDir,
			dataDir: join(nodeDir, "data"),
			patroni: null,
		};
	});
}

/** What a start that failed half-way had started, to be stopped in reverse. */
type Undo = (() => Promise<unknown>)[];

/**
 * The cluster on `network`: etcd, the three Patroni nodes (resolving once a
 * leader and two streaming standbys run; bootstrapping and two base backups
 * took more than 90 s once on a loaded 2-core machine), the fax database
 * `faxes` owned by `testfax`, and each node's HAProxy leading to the primary.
 * Whatever it started is stopped again when a step fails.
 */
export async function startCluster(network: Network): Promise<Cluster> {
	for (const tool of ["etcd", "patroni", "haproxy"]) requireTool(tool);
	const dir = tempDir();
	const undo: Undo = [async () => Bun.spawnSync(["rm", "-rf", dir])];
	try {
		return await clusterIn(dir, network, undo);
	} catch (error) {
		for (const step of undo.reverse()) await step();
		throw error;
	}
}

async function clusterIn(dir: string, network: Network, undo: Undo): Promise<Cluster> {
	const nodes = nodesIn(dir, network);
	const etcdCluster = {
		dir,
		token: `testfax-${network.bridge}`,
		initial: nodes.map((node) => `etcd-${node.name}=${peerUrl(node)}`).join(","),
	};
	const etcd = await startEtcd(nodes, etcdCluster).catch((error) => {
		throw new Error(`${error} (${readFileSync(join(nodes[0]?.dir ?? "", "etcd.log"), "utf8").slice(-300)})`);
	});
	undo.push(() => stopEtcd(etcd));
	const etcdHosts = nodes.map((node) => `${node.address}:${PORTS.etcdClient}`).join(",");
	for (const node of nodes) node.patroni = spawnPatroni(node, etcdHosts, network);
	undo.push(() => Promise.all(nodes.map(stopPatroni)));
	const members = async () => {
		for (const node of nodes) {
			const list = await membersOf(node);
			if (list.length > 0) return list;
		}
		return [];
	};
	const first = await until(
		"three nodes, a leader and two streaming standbys",
		async () => {
			checkPatroniAlive(nodes);
			const list = await members();
			return whole(list) ? list : null;
		},
		240_000,
	);
	const leader = nodes.find((node) => node.name === first.find((m) => m.role === "leader")?.name);
	psql(leader as ClusterNode, "CREATE DATABASE faxes OWNER testfax");
	const haproxies = nodes.map((node) => startHaproxy(node, nodes));
	undo.push(() => Promise.all(haproxies.map((child) => stopChild(child))));
	return clusterOf(nodes, { etcd, etcdCluster, etcdHosts, haproxies, members, network, dir });
}

interface Started {
	etcd: Bun.Subprocess[];
	etcdCluster: EtcdCluster;
	etcdHosts: string;
	haproxies: Bun.Subprocess[];
	members: () => Promise<Member[]>;
	network: Network;
	dir: string;
}

async function clusterOf(nodes: ClusterNode[], started: Started): Promise<Cluster> {
	const url = (address: string, port: number) =>
		`postgres://testfax:${FAX_PASSWORD}@${address}:${port}/faxes`;
	await Promise.all(nodes.map((node) => untilOnlyPrimary(url(node.address, PORTS.primary))));
	// Each standby has the database once it has replayed its creation.
	for (const node of nodes) {
		await until(
			`the fax database on ${node.name}`,
			async () =>
				probe(
					url(node.address, PORTS.postgres),
					async (db) => (await db.run("SELECT 1 AS ok")).rows.length === 1,
				),
			60_000,
		);
	}
	const byName = (list: Member[], role: Member["role"]) =>
		nodes.find((node) => node.name === list.find((m) => m.role === role)?.name);
	return {
		nodes,
		primaryUrl: (via = nodes[0] as ClusterNode) => url(via.address, PORTS.primary),
		nodeUrl: (node) => url(node.address, PORTS.postgres),
		members: started.members,
		async roles() {
			const list = await until("a whole cluster", async () => {
				const list = await started.members();
				return whole(list) ? list : null;
			});
			const [leader, syncStandby] = [byName(list, "leader"), byName(list, "sync_standby")];
			const replica = nodes.find((node) => node !== leader && node !== syncStandby);
			return { leader, syncStandby, replica } as Roles;
		},
		walReceiver(node) {
			try {
				return psql(node, "SELECT status FROM pg_stat_wal_receiver");
			} catch {
				return "";
			}
		},
		kill: (node) => killNode(node),
		stopNode: stopPatroni,
		restart(node) {
			node.patroni = spawnPatroni(node, started.etcdHosts, started.network);
		},
		switchover: (leader, candidate) => switchover(leader, candidate),
		patronictl,
		replaceHost: (node) => replaceHost(nodes, node, started),
		stop: () => stopCluster(nodes, started),
	};
}

/**
 * The node's host lost and replaced, as docs/operations/cluster.md,
 * "Replacing a failed node", says: its Patroni, PostgreSQL and etcd member
 * killed and their data gone; then its etcd member replaced
 * (etcd-replace-member.sh, through a surviving member) and started as
 * joining, and Patroni started on an empty data folder, which it clones from
 * the leader.
 */
async function replaceHost(nodes: ClusterNode[], node: ClusterNode, started: Started): Promise<void> {
	const index = nodes.indexOf(node);
	await killNode(node);
	started.etcd[index]?.kill("SIGKILL");
	await started.etcd[index]?.exited;
	rmSync(node.dataDir, { recursive: true, force: true });
	rmSync(join(started.etcdCluster.dir, `etcd-${node.name}`), { recursive: true, force: true });
	const survivor = nodes.find((other) => other !== node) as ClusterNode;
	// The lost member may have led etcd: the two left elect another first.
	await untilEtcdHealthy(survivor);
	const replaced = Bun.spawnSync([join(DEPLOY, "etcd-replace-member.sh")], {
		env: childEnv({
			ENDPOINTS: clientUrl(survivor),
			MEMBER_NAME: `etcd-${node.name}`,
			PEER_URL: peerUrl(node),
		}),
		stdout: "pipe",
		stderr: "pipe",
	});
	if (replaced.exitCode !== 0) throw new Error(`etcd-replace-member.sh: ${replaced.stderr}`);
	started.etcd[index] = spawnEtcd(node, started.etcdCluster, "existing");
	await untilEtcdHealthy(node);
	node.patroni = spawnPatroni(node, started.etcdHosts, started.network);
}

/**
 * SIGKILL of Patroni, then of its postmaster. The postmaster was Patroni's
 * child: orphaned, it is reaped by the machine's init (`ip netns exec` forks
 * no reaper of its own). Until it is reaped its pid stays taken, and a new
 * postmaster takes the pid in postmaster.pid for a live server and refuses
 * to start, so this waits for that first.
 */
async function killNode(node: ClusterNode): Promise<void> {
	const postmaster = Number(readFileSync(join(node.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
	node.patroni?.kill("SIGKILL");
	await node.patroni?.exited;
	node.patroni = null;
	process.kill(postmaster, "SIGKILL");
	await until(
		`the killed postmaster ${postmaster} reaped (this machine's init, PID 1, reaps orphans)`,
		async () => !existsSync(`/proc/${postmaster}`),
		30_000,
	);
}

/**
 * Stops the node's Patroni, which stops its PostgreSQL first; a postmaster
 * still running after that (Patroni killed at the end of its grace) is
 * killed too, so that nothing of the test's is left.
 */
async function stopPatroni(node: ClusterNode): Promise<void> {
	await stopChild(node.patroni);
	node.patroni = null;
	const pidFile = join(node.dataDir, "postmaster.pid");
	const postmaster = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : 0;
	// A stale file (a killed server's) may name a pid reused since.
	if (postmaster > 0 && commOf(postmaster) === "postgres") process.kill(postmaster, "SIGKILL");
}

function commOf(pid: number): string {
	try {
		return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
	} catch {
		return "";
	}
}

/** `patronictl` with `node`'s Patroni settings, as the runbook runs it; its output. */
async function patronictl(node: ClusterNode, args: string[]): Promise<CommandResult> {
	const child = Bun.spawn(["patronictl", "-c", join(node.dir, "patroni.yml"), ...args], {
		env: childEnv({}),
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	return outputOf(child);
}

/** deploy/cluster/switchover.sh with `leader`'s Patroni settings: exit 0 once `candidate` leads. */
function switchover(leader: ClusterNode, candidate: ClusterNode): Promise<CommandResult> {
	const child = Bun.spawn([join(DEPLOY, "switchover.sh"), leader.name, candidate.name], {
		env: childEnv({ PATRONI_CONFIG: join(leader.dir, "patroni.yml") }),
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	return outputOf(child);
}

async function stopCluster(nodes: ClusterNode[], started: Started): Promise<void> {
	await Promise.all(started.haproxies.map((child) => stopChild(child)));
	await Promise.all(nodes.map(stopPatroni));
	await stopEtcd(started.etcd);
	Bun.spawnSync(["rm", "-rf", started.dir]);
}
