// The faults of `npm run test:cluster` (test/cluster/failover.ts) and
// `bun run bench:cluster`, each run on the site of testkit/cluster-site.ts
// under a steady writer and readers, with what each measured:
//
// - the writer: a `fax ingest` every second in one node's namespace through
//   that node's HAProxy to the primary, each fax handed over again until it
//   is acknowledged (exit 0), as a receiver re-delivers; every fault's faxes
//   carry a sender of their own, so that its list is at most 100 long;
// - the readers: GET /api/faxes?limit=100 through the public address, in a
//   loop, every answer's status kept.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ClusterNode, follows, type Member, type Roles, TTL_SECONDS, until, whole } from "./cluster.ts";
import type { Instance, Site } from "./cluster-site.ts";
import { type CommandResult, childrenOf, runCommand } from "./processes.ts";

const ROOT = join(import.meta.dir, "..");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const UA = { "User-Agent": "cluster-test/1.0" };
const READERS = 3;
const WRITE_EVERY_MS = 1000;
/** How long both standbys stay stopped. */
export const STANDBYS_AWAY_MS = 20_000;
/** How long the primary stays cut off: longer than Patroni's ttl, so that another node takes over. */
export const CUT_MS = (TTL_SECONDS + 5) * 1000;

/** One read through the public address; `at` in ms from the fault's start. */
export interface Read {
	at: number;
	status: number;
	ms: number;
	/** The answer's body (its start) or the error, for any answer but a 200. */
	detail: string;
}

/** One `fax ingest` that failed; `at` (its start) in ms from the fault's start. */
export interface Attempt {
	key: string;
	at: number;
	ms: number;
	code: number;
	stderr: string;
}

export interface Acknowledged {
	key: string;
	slug: string;
	/** When it was acknowledged, in ms from the fault's start. */
	at: number;
}

/** A node that came back after the fault, once the writer has had three more faxes acknowledged. */
export interface Rejoined {
	node: string;
	/** Its entry in Patroni's /cluster. */
	member: Member | undefined;
	/** The leader's timeline then. */
	leaderTimeline: number | undefined;
	/** Its pg_stat_wal_receiver status. */
	walReceiver: string;
	/** What its API instance answers for the last fax acknowledged. */
	lastFaxStatus: number;
}

export interface FaultRun {
	fault: string;
	sender: string;
	acknowledged: Acknowledged[];
	failedAttempts: Attempt[];
	reads: number;
	failedReads: Read[];
	slowestReadMs: number;
	/** The longest time between two acknowledged faxes. */
	writeOutageMs: number;
	/** When the fault was in force (Plan.act), in ms from its start. */
	inForce: [number, number];
	/** When another node was seen leading, in ms from the fault's start; null when no other node had to. */
	newLeaderAt: number | null;
	/** From the end of the fault (a restart, the cut healed, the switchover asked) to every node streaming again. */
	rejoinMs: number;
	rejoined: Rejoined[];
	/** The slugs listed for the fault's sender through the public address at the end. */
	listed: string[];
	/** The front HAProxy's lines of the fault: answers other than 200, retried requests, instances down and up. */
	proxyLog: string[];
	/** deploy/cluster/switchover.sh to the standby that is not synchronous (the switchover fault only). */
	refusal?: CommandResult;
	/** The lists held with wait=30 through the public address as the fault began. */
	heldWaits: HeldWait[];
}

/** What a fault does: the node whose HAProxy the writer uses, and the fault itself. */
interface Plan {
	via: ClusterNode;
	/**
	 * `inForce`: from when the fault was whole (the kill done, the cut made,
	 * both standbys stopped, the switchover asked) to when it ended (the
	 * restart, the cut healed).
	 */
	act(): Promise<Outcome>;
}

interface Outcome {
	inForce: [number, number];
	/** When another node was seen leading, if the fault makes one lead. */
	newLeaderAt?: number;
	/** The nodes the fault took away, which must stream again. */
	back: ClusterNode[];
	refusal?: CommandResult;
}

export interface Fault {
	name: string;
	plan(site: Site, roles: Roles): Plan;
}

const now = () => performance.now();

const ingestOptions = (sender: string, key: string) =>
	["--source", "phone"].concat(["--sender", sender], ["--receipt-key", key]);

/** Whether the writer takes another fax, and whether it gives up the one it hands over. */
interface WriterState {
	running: boolean;
	abandoned: boolean;
}

/** Hands fax `key` over until it is acknowledged (exit 0); each failed attempt is kept in `failed`. */
async function deliver(site: Site, via: ClusterNode, key: string, failed: Attempt[], state: WriterState) {
	const sender = key.split("/")[0] ?? "";
	const deadline = now() + 180_000;
	while (now() < deadline) {
		if (state.abandoned) throw new Error(`fax ${key} abandoned: the fault failed`);
		const started = now();
		const result = await runCommand(
			[...via.host.exec, process.execPath, "bin/fax.ts", "ingest", TIFF, ...ingestOptions(sender, key)],
			{ cwd: ROOT, env: site.ingestEnv(via) },
		);
		if (result.code === 0) return result.stdout.trim();
		failed.push({ key, at: started, ms: now() - started, code: result.code, stderr: result.stderr.trim() });
		await Bun.sleep(500);
	}
	throw new Error(`fax ${key} was never acknowledged within 180 s`);
}

type Writer = ReturnType<typeof startWriter>;

/** Faxes of `sender`, one a second, each handed over until acknowledged; stop() lets the last one finish. */
function startWriter(site: Site, via: ClusterNode, sender: string) {
	const acknowledged: Acknowledged[] = [];
	const failed: Attempt[] = [];
	const state: WriterState = { running: true, abandoned: false };
	const loop = (async () => {
		for (let n = 0; state.running; n++) {
			const started = now();
			const key = `${sender}/${n}`;
			acknowledged.push({ key, slug: await deliver(site, via, key, failed, state), at: now() });
			await Bun.sleep(Math.max(0, WRITE_EVERY_MS - (now() - started)));
		}
	})();
	// Kept until stop() is awaited, so that a failing writer fails the fault there.
	const ended = loop.then(
		() => null,
		(error: unknown) => error,
	);
	return {
		acknowledged,
		failed,
		async stop() {
			state.running = false;
			const error = await ended;
			if (error !== null) throw error;
		},
		/** Ends the writer without waiting, its last fax given up: the fault failed. */
		abandon() {
			state.running = false;
			state.abandoned = true;
		},
	};
}

async function read(url: string): Promise<Omit<Read, "at">> {
	const started = now();
	try {
		const response = await fetch(`${url}/api/faxes?limit=100`, {
			headers: UA,
			signal: AbortSignal.timeout(60_000),
		});
		const body = await response.text();
		return { status: response.status, ms: now() - started, detail: response.ok ? "" : body.slice(0, 200) };
	} catch (error) {
		return { status: 0, ms: now() - started, detail: String(error) };
	}
}

type Readers = ReturnType<typeof startReaders>;

/** READERS loops of reads through `url`, each 100 ms after the last answer. */
function startReaders(url: string) {
	const reads: Read[] = [];
	let running = true;
	const readers = Array.from({ length: READERS }, async () => {
		while (running) {
			const at = now();
			reads.push({ at, ...(await read(url)) });
			await Bun.sleep(100);
		}
	});
	return {
		async stop() {
			running = false;
			await Promise.all(readers);
			return reads;
		},
		halt() {
			running = false;
		},
	};
}

// Lists held through the public address as each fault begins, one on each
// instance (the front balances round robin), for a sender with no faxes, so
// that only their time limit or a failure answers them.
const HELD_WAITS = 3;
const HELD_WAIT_SECONDS = 30;

/** One held list's answer: its status and how long the client waited for it, through the front's retries. */
export interface HeldWait {
	status: number;
	ms: number;
}

function holdWaits(url: string): Promise<HeldWait[]> {
	return Promise.all(
		Array.from({ length: HELD_WAITS }, async () => {
			const at = now();
			try {
				const response = await fetch(
					`${url}/api/faxes?limit=100&from=%2B15550100009&wait=${HELD_WAIT_SECONDS}`,
					{ headers: { "User-Agent": "cluster-test/1.0" }, signal: AbortSignal.timeout(120_000) },
				);
				await response.text();
				return { status: response.status, ms: now() - at };
			} catch {
				return { status: 0, ms: now() - at };
			}
		}),
	);
}

/** Waits until every node of `nodes` streams from the primary as a standby, on its timeline. */
async function untilStreaming(site: Site, nodes: ClusterNode[]): Promise<void> {
	let members: Member[] = [];
	const streaming = (node: ClusterNode) =>
		follows(
			members.find((m) => m.name === node.name),
			members,
		) && site.cluster.walReceiver(node) === "streaming";
	try {
		await until(
			`${nodes.map((node) => node.name).join(" and ")} streaming as standbys`,
			async () => {
				members = await site.cluster.members();
				return nodes.every(streaming);
			},
			120_000,
		);
	} catch (error) {
		// Why a node never followed is in the Patroni logs, which the site removes with their folders.
		throw new Error(
			`${error}; members ${JSON.stringify(members)}; ${site.cluster.nodes.map(patroniTail).join("; ")}`,
		);
	}
}

function patroniTail(node: ClusterNode): string {
	const log = readFileSync(join(node.dir, "patroni.log"), "utf8").trim().split("\n");
	const said = log.filter((line) => !/INFO: no action\. I am/.test(line));
	const etcd = readFileSync(join(node.dir, "etcd.log"), "utf8")
		.split("\n")
		.filter((line) => /elected leader|became (leader|follower|candidate)|lost leader|term/.test(line));
	return `${node.name}'s Patroni log ends: ${said.slice(-30).join(" | ")}; its etcd's elections: ${etcd.slice(-12).join(" | ")}`;
}

async function rejoined(site: Site, node: ClusterNode, lastSlug: string): Promise<Rejoined> {
	const members = await site.cluster.members();
	const instance = site.instances.find((i) => i.node === node);
	return {
		node: node.name,
		member: members.find((m) => m.name === node.name),
		leaderTimeline: members.find((m) => m.role === "leader")?.timeline,
		walReceiver: site.cluster.walReceiver(node),
		lastFaxStatus: await lastFaxStatus(instance, lastSlug),
	};
}

/** Waits for a leader other than `old`; returns it. */
function untilNewLeader(site: Site, old: ClusterNode): Promise<Member> {
	return until("a new leader", async () =>
		(await site.cluster.members()).find((m) => m.role === "leader" && m.name !== old.name),
	);
}

async function lastFaxStatus(instance: Instance | undefined, slug: string): Promise<number> {
	let status = 0;
	await until(
		`fax ${slug} on ${instance?.node.name}`,
		async () => {
			const response = await fetch(`${instance?.url}/api/faxes/${slug}`, { headers: UA }).catch(() => null);
			status = response?.status ?? 0;
			await response?.arrayBuffer();
			return status === 200;
		},
		15_000,
	).catch(() => {});
	return status;
}

/** The slugs the public address lists for `sender`, once it lists every one of `expected` (or after 15 s). */
async function listedFor(site: Site, sender: string, expected: string[]): Promise<string[]> {
	let listed: string[] = [];
	await until(
		`every acknowledged fax of ${sender} listed`,
		async () => {
			const url = `${site.publicUrl}/api/faxes?limit=100&from=${encodeURIComponent(sender)}`;
			const response = await fetch(url, { headers: UA }).catch(() => null);
			listed = response?.ok ? ((await response.json()) as { slug: string }[]).map((row) => row.slug) : [];
			return expected.every((slug) => listed.includes(slug));
		},
		15_000,
	).catch(() => {});
	return listed;
}

/** One file of a fax through the public address: its status, and whether its bytes are those ingest wrote. */
export interface ServedFile {
	file: string;
	status: number;
	sameBytes: boolean;
}

/**
 * The PDF and thumbnail of each fax through the public address. No instance
 * has them on its disk (only the host that ran `fax ingest` does): each
 * serves them from the database.
 */
export async function servedFiles(site: Site, slugs: string[]): Promise<ServedFile[]> {
	const files = slugs.flatMap((slug) => [`${slug}.pdf`, `${slug}-thumb.jpg`]);
	return Promise.all(
		files.map(async (file) => {
			const response = await fetch(`${site.publicUrl}/cdn/faxes/${file}`, { headers: UA });
			const bytes = new Uint8Array(await response.arrayBuffer());
			const original = await Bun.file(join(site.ingestStorage, "faxes", file)).bytes();
			return { file, status: response.status, sameBytes: Buffer.from(bytes).equals(original) };
		}),
	);
}

/**
 * The front HAProxy's log lines from byte `from` on that matter: an answer
 * other than 200, a request tried more than once (its retries field, the
 * fifth of `ac/fc/bc/sc/rc`, not 0), an instance going down or up.
 */
async function proxyLines(log: string, from: number): Promise<string[]> {
	const text = await Bun.file(log).slice(from).text();
	return text.split("\n").filter((line) => {
		if (/ is (DOWN|UP)/.test(line)) return true;
		const fields = line.split(" ");
		// Any other line (a notice, the empty last one) is no request's.
		if (fields.length < 11) return false;
		return fields[5] !== "200" || fields[10]?.split("/")[4] !== "0";
	});
}

/** The longest time between two acknowledgements, in ms. */
const longestGap = (times: number[]) => Math.max(0, ...times.slice(1).map((at, i) => at - (times[i] ?? at)));

/**
 * Runs `fault` under the writer and the readers: three faxes acknowledged
 * before it, three after it ended and every node it touched streams again.
 * Times in the result are in ms from the fault's start. Whatever fails,
 * the writer and the readers end with it.
 */
export async function runFault(site: Site, fault: Fault, sender: string): Promise<FaultRun> {
	const plan = fault.plan(site, await site.cluster.roles());
	const logFrom = statSync(site.frontLog).size;
	const readers = startReaders(site.publicUrl);
	const writer = startWriter(site, plan.via, sender);
	try {
		const run = await underLoad(site, plan, writer, readers);
		return {
			...run,
			fault: fault.name,
			sender,
			listed: await listedFor(
				site,
				sender,
				run.acknowledged.map((ack) => ack.slug),
			),
			proxyLog: await proxyLines(site.frontLog, logFrom),
		};
	} finally {
		writer.abandon();
		readers.halt();
	}
}

type Measured = Omit<FaultRun, "fault" | "sender" | "listed" | "proxyLog">;

async function underLoad(site: Site, plan: Plan, writer: Writer, readers: Readers): Promise<Measured> {
	await until(
		"three faxes acknowledged before the fault",
		async () => writer.acknowledged.length >= 3,
		60_000,
	);
	const held = holdWaits(site.publicUrl);
	await Bun.sleep(500);
	const faultAt = now();
	const outcome = await plan.act();
	await untilStreaming(site, outcome.back);
	const rejoinMs = now() - outcome.inForce[1];
	const count = writer.acknowledged.length;
	await until(
		"three faxes acknowledged after the fault",
		async () => writer.acknowledged.length >= count + 3,
		180_000,
	);
	await writer.stop();
	const reads = await readers.stop();
	const since = (at: number) => at - faultAt;
	const acknowledged = writer.acknowledged.map((ack) => ({ ...ack, at: since(ack.at) }));
	const last = acknowledged.at(-1)?.slug ?? "";
	return {
		acknowledged,
		failedAttempts: writer.failed.map((attempt) => ({ ...attempt, at: since(attempt.at) })),
		reads: reads.length,
		failedReads: reads.filter((r) => r.status !== 200).map((r) => ({ ...r, at: since(r.at) })),
		slowestReadMs: Math.max(...reads.map((r) => r.ms)),
		writeOutageMs: longestGap(writer.acknowledged.map((ack) => ack.at)),
		inForce: [since(outcome.inForce[0]), since(outcome.inForce[1])],
		newLeaderAt: outcome.newLeaderAt === undefined ? null : since(outcome.newLeaderAt),
		rejoinMs,
		rejoined: await Promise.all(outcome.back.map((node) => rejoined(site, node, last))),
		refusal: outcome.refusal,
		heldWaits: await held,
	};
}

/** The primary's Patroni and PostgreSQL SIGKILLed; once another node leads, its Patroni is started again. */
export const killPrimary: Fault = {
	name: "primary killed",
	plan: (site, { leader, replica }) => ({
		via: replica,
		async act() {
			await site.cluster.kill(leader);
			const killed = now();
			await untilNewLeader(site, leader);
			const restarted = now();
			site.cluster.restart(leader);
			return { inForce: [killed, restarted], newLeaderAt: restarted, back: [leader] };
		},
	}),
};

/** The primary cut off (iptables in its namespace) for CUT_MS, longer than the ttl, then let back. */
export const partitionPrimary: Fault = {
	name: "primary cut off",
	plan: (site, { leader, replica }) => ({
		via: replica,
		async act() {
			const cutAt = now();
			site.network.cut(leader.host);
			let newLeaderAt: number;
			try {
				await untilNewLeader(site, leader);
				newLeaderAt = now();
				await Bun.sleep(Math.max(0, CUT_MS - (now() - cutAt)));
			} finally {
				site.network.heal(leader.host);
			}
			return { inForce: [cutAt, now()], newLeaderAt, back: [leader] };
		},
	}),
};

/** Both standbys' Patroni (and with it their PostgreSQL) stopped for STANDBYS_AWAY_MS, then started. */
export const stopStandbys: Fault = {
	name: "both standbys stopped",
	plan: (site, { leader, syncStandby, replica }) => ({
		via: leader,
		async act() {
			const standbys = [syncStandby, replica];
			await Promise.all(standbys.map((node) => site.cluster.stopNode(node)));
			const stopped = now();
			await Bun.sleep(STANDBYS_AWAY_MS);
			const restarted = now();
			for (const node of standbys) site.cluster.restart(node);
			return { inForce: [stopped, restarted], back: standbys };
		},
	}),
};

/**
 * deploy/cluster/switchover.sh to the standby that is not synchronous
 * (refused in synchronous mode), then to the sync standby; the old primary
 * follows it.
 */
export const switchover: Fault = {
	name: "switchover",
	plan: (site, { leader, syncStandby, replica }) => ({
		via: replica,
		async act() {
			const refusal = await site.cluster.switchover(leader, replica);
			const asked = now();
			const done = await site.cluster.switchover(leader, syncStandby);
			// switchover.sh exits 0 only once the candidate leads.
			if (done.code !== 0) throw new Error(`switchover.sh failed: ${done.stdout}${done.stderr}`);
			return { inForce: [asked, asked], newLeaderAt: now(), back: [leader], refusal };
		},
	}),
};

/**
 * The primary's Patroni dies and its unit brings it back
 * (deploy/cluster/systemd/testfax-patroni.service): KillMode=mixed kills
 * what Patroni left, its PostgreSQL and every backend, and Restart=on-failure
 * starts Patroni again 0.1 s later. It still holds the leader key: it starts
 * its PostgreSQL anew and leads on, and no other node takes over.
 */
export const restartPrimary: Fault = {
	name: "primary's Patroni restarted by its unit",
	plan: (site, { leader, replica }) => ({
		via: replica,
		async act() {
			const postmaster = Number(
				(await Bun.file(join(leader.dataDir, "postmaster.pid")).text()).split("\n")[0],
			);
			const backends = await childrenOf(postmaster);
			await site.cluster.kill(leader);
			for (const pid of backends) killGone(pid);
			const killed = now();
			await Bun.sleep(100);
			site.cluster.restart(leader);
			let newLeaderAt: number | undefined;
			await until("the old primary leading again, two standbys streaming", async () => {
				const members = await site.cluster.members();
				const leading = members.find((m) => m.role === "leader")?.name;
				if (leading !== undefined && leading !== leader.name) newLeaderAt ??= now();
				return leading === leader.name && whole(members);
			});
			return { inForce: [killed, killed], newLeaderAt, back: [] };
		},
	}),
};

/** SIGKILL of `pid`, which may have exited already. */
function killGone(pid: number): void {
	try {
		process.kill(pid, "SIGKILL");
	} catch {
		// Gone with its postmaster.
	}
}

/**
 * The host of the standby that is not synchronous lost with its data, then
 * replaced as the runbook says (Cluster.replaceHost): writes go on, and the
 * new host clones the leader and streams.
 */
export const replaceStandbyHost: Fault = {
	name: "standby host replaced",
	plan: (site, { leader, replica }) => ({
		via: leader,
		async act() {
			const lost = now();
			await site.cluster.replaceHost(replica);
			return { inForce: [lost, now()], back: [replica] };
		},
	}),
};

export const FAULTS = [
	killPrimary,
	restartPrimary,
	partitionPrimary,
	stopStandbys,
	switchover,
	replaceStandbyHost,
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const signed = (ms: number) => `${ms < 0 ? "-" : "+"}${seconds(Math.abs(ms))}`;

/** The run in a few lines: its figures, then each failed read and ingest and the proxy's lines about them. */
export function describeRun(run: FaultRun): string {
	const lines = [
		`${run.fault}: ${run.acknowledged.length} faxes acknowledged, ${run.listed.length} listed; ` +
			`fault in force ${signed(run.inForce[0])} to ${signed(run.inForce[1])}` +
			`${run.newLeaderAt === null ? "" : `, another node leading at ${signed(run.newLeaderAt)}`}; ` +
			`write outage ${seconds(run.writeOutageMs)}; back streaming ${seconds(run.rejoinMs)} after the fault ended; ` +
			`${run.reads} reads through the public address, ${run.failedReads.length} not 200 ` +
			`(slowest ${seconds(run.slowestReadMs)}); ${run.failedAttempts.length} failed ingests; ` +
			`lists held with wait=30: ${run.heldWaits.map((held) => `${held.status} in ${seconds(held.ms)}`).join(", ")}`,
		...run.failedReads.map((r) => `  read at ${signed(r.at)} (${seconds(r.ms)}): ${r.status} ${r.detail}`),
		...run.failedAttempts.map(
			(a) =>
				`  ingest ${a.key} at ${signed(a.at)} failed after ${seconds(a.ms)} (exit ${a.code}): ${a.stderr}`,
		),
		...run.rejoined.map(
			(r) =>
				`  ${r.node}: ${r.member?.role} ${r.member?.state}, lag ${r.member?.lag}, timeline ${r.member?.timeline} ` +
				`(leader's ${r.leaderTimeline}), WAL receiver ${r.walReceiver || "none"}; last fax ${r.lastFaxStatus}`,
		),
	];
	if (run.refusal !== undefined) {
		lines.push(
			`  switchover to the other standby: exit ${run.refusal.code}: ${run.refusal.stdout.trim()} ${run.refusal.stderr.trim()}`,
		);
	}
	lines.push(...run.proxyLog.slice(0, 40).map((line) => `  proxy: ${line}`));
	if (run.proxyLog.length > 40) lines.push(`  proxy: ... ${run.proxyLog.length - 40} lines more`);
	return lines.join("\n");
}
