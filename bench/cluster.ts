// `bun run bench:cluster`: the faxes in a three-node PostgreSQL cluster, three
// hosts on one machine (testkit/cluster-site.ts: a network namespace a node
// with etcd, Patroni, HAProxy and an API instance, as deploy/cluster/; the
// public HAProxy in front; needs root), measured in one run:
//
// - commit -> listed on a standby's API: a fax inserted through HAProxy, then
//   its page asked of an instance on a standby until it answers 200;
// - commit -> a `wait` held on that instance answers;
// - the CPU of that instance over 5 s with nothing held and with 10,000 held
//   (its tick reads fax_commits every 10 ms while anything is held), against
//   the same on an instance on SQLite;
// - list and poll throughput of the instance on the standby against the same
//   instance on a SQLite file holding the same faxes (the yardstick), in 5
//   rounds of 2 s each that alternate which goes first, the median ratio;
// - the four faults of `npm run test:cluster` (testkit/cluster-faults.ts),
//   each under a `fax ingest` every second and readers through the public
//   address: the reads that were not a 200, the write outage (the longest
//   time between two acknowledged faxes), how long each failing ingest took
//   (with both standbys stopped: until it gives up on the commit), the time
//   until the nodes the fault touched stream again, and acknowledged faxes
//   not listed once.
//
// Only ratios within one run mean something.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openEngine } from "../lib/db/index.ts";
import { type FaxRow, formatUtcSeconds } from "../lib/fax/index.ts";
import { until } from "../testkit/cluster.ts";
import { describeRun, FAULTS, type FaultRun, runFault } from "../testkit/cluster-faults.ts";
import { startSite } from "../testkit/cluster-site.ts";
import { makeTempDir } from "../testkit/server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { runLoad } from "./load.ts";

const SEEDED = 2000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const HELD = 10_000;
const LOAD_SECONDS = 2;
const ROUNDS = 5;
const LOAD_CONNECTIONS = 16;
const AGENT = "testfax-bench/1.0";
const dir = makeTempDir();
const now = () => Math.floor(Date.now() / 1000);
let made = 0;
// Seeded faxes spread over the last hour; a measured one is the newest, so a held list changes.
const fax = (spread = true): FaxRow => ({
	slug: `fax_Bench${String(++made).padStart(7, "0")}`,
	source: "phone",
	sender: `+1 555 ${made % 50}`,
	received_at: now() - (spread ? made % 3600 : 0),
	page_count: 1,
	file_size: 1000,
});
const percentile = (values: number[], p: number) =>
	[...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;
const ms = (value: number) => `${value.toFixed(1)} ms`;

const site = await startSite(dir);
const { cluster } = site;
const primary = new FaxStore(
	await openEngine({ databasePath: "", databaseUrl: cluster.primaryUrl(), busyTimeoutMs: 5000 }),
);
const sqlite = new FaxStore(
	await openEngine({ databasePath: join(dir, "faxes.sqlite"), databaseUrl: null, busyTimeoutMs: 5000 }),
);
for (let i = 0; i < SEEDED; i += 100) {
	const rows = Array.from({ length: 100 }, () => fax());
	for (const store of [primary, sqlite])
		await store.write(async (writer) => {
			for (const row of rows) await writer.insert(row);
		});
}
const standbyNode = (await cluster.roles()).replica;
const common = {
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
	LOG_LEVEL: "silent",
	RATE_LIMIT_PER_MINUTE: "1000000000",
	TRUST_PROXY: "127.0.0.1",
	WAIT_MAX_HELD: String(HELD * 2),
	STORAGE_DIR: join(dir, "storage"),
};
const onStandby = await startServerProcess({
	...common,
	DATABASE_URL: cluster.nodeUrl(standbyNode),
	DATABASE_PATH: join(dir, "unused.sqlite"),
});
const onSqlite = await startServerProcess({ ...common, DATABASE_PATH: join(dir, "faxes.sqlite") });
const portOf = (url: string) => Number(new URL(url).port);

/** CPU seconds of every thread of a process (utime + stime of /proc/PID/stat). */
function cpuSeconds(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function heldOn(adminUrl: string): Promise<number> {
	const metrics = await fetch(`${adminUrl}/metrics`).then((r) => r.text());
	return Number(/\ntestfax_held_requests (\d+)\n/.exec(metrics)?.[1] ?? 0);
}

console.error("bench:cluster: commit -> listed, commit -> wait");
// Commit -> listed on the standby's instance, and commit -> a held wait there answers.
const listedMs: number[] = [];
const waitMs: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
	const row = fax(false);
	await primary.insert(row);
	const committed = performance.now();
	while (
		(await fetch(`${onStandby.url}/api/faxes/${row.slug}`, { headers: { "user-agent": AGENT } })).status !==
		200
	);
	listedMs.push(performance.now() - committed);
	const current = await fetch(`${onStandby.url}/api/faxes?limit=100`, { headers: { "user-agent": AGENT } });
	await current.arrayBuffer();
	const held = fetch(`${onStandby.url}/api/faxes?limit=100&wait=30`, {
		headers: { "user-agent": AGENT, "if-none-match": current.headers.get("etag") ?? "" },
	}).then(async (r) => {
		await r.arrayBuffer();
		return performance.now();
	});
	await until("the wait held", async () => (await heldOn(onStandby.adminUrl)) === 1, 10_000);
	await primary.insert(fax(false));
	const waitCommitted = performance.now();
	waitMs.push((await held) - waitCommitted);
}

console.error("bench:cluster: throughput");
// Throughput: the default list and a poll answered 304, standby against SQLite.
/** Requests per second of one load on `server`, and the CPU time it took per answer (µs, all its threads). */
async function throughput(server: typeof onStandby, path: string, etag: boolean) {
	const first = await fetch(`${server.url}${path}`, { headers: { "user-agent": AGENT } });
	await first.arrayBuffer();
	const headers = etag ? `If-None-Match: ${first.headers.get("etag")}\r\n` : "";
	const clients = Array.from({ length: 1000 }, (_, i) => `10.9.${i >> 8}.${i & 255}`);
	const target = { port: portOf(server.url), paths: [path], clients, headers };
	await runLoad(target, 1, LOAD_CONNECTIONS);
	const cpuBefore = cpuSeconds(server.child.pid);
	const load = await runLoad(target, LOAD_SECONDS, LOAD_CONNECTIONS);
	return {
		perSecond: load.perSecond,
		cpuMicros: ((cpuSeconds(server.child.pid) - cpuBefore) * 1e6) / load.requests,
	};
}
const pollPath = `/api/faxes?since=${encodeURIComponent(formatUtcSeconds(now() - 600))}&limit=100`;
// Rounds alternate which instance goes first; each round's ratio is taken
// within it, and the median of the rounds is reported: the machine's other
// load moves both instances of one round alike. The CPU time per answer
// (SQLite's over the standby's) says the same with less of the machine's
// other load in it: it is what a core would give each.
async function ratios(path: string, etag: boolean) {
	const rounds: { standby: number; sqlite: number; ratio: number; cpuRatio: number }[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		const order = round % 2 === 0 ? [onStandby, onSqlite] : [onSqlite, onStandby];
		const measured = new Map<typeof onStandby, Awaited<ReturnType<typeof throughput>>>();
		for (const server of order) measured.set(server, await throughput(server, path, etag));
		const standby = measured.get(onStandby) ?? { perSecond: 0, cpuMicros: 1 };
		const sqlite = measured.get(onSqlite) ?? { perSecond: 1, cpuMicros: 1 };
		rounds.push({
			standby: standby.perSecond,
			sqlite: sqlite.perSecond,
			ratio: standby.perSecond / sqlite.perSecond,
			cpuRatio: sqlite.cpuMicros / standby.cpuMicros,
		});
	}
	return {
		median: percentile(
			rounds.map((r) => r.ratio),
			50,
		),
		cpuMedian: percentile(
			rounds.map((r) => r.cpuRatio),
			50,
		),
		rounds,
	};
}
const rates = { list: await ratios("/api/faxes?limit=100", false), poll: await ratios(pollPath, true) };
const roundsText = (measure: Awaited<ReturnType<typeof ratios>>) =>
	measure.rounds
		.map((r) => `${r.standby.toFixed(0)}/${r.sqlite.toFixed(0)}=${r.ratio.toFixed(2)}`)
		.join(", ");

console.error("bench:cluster: CPU idle and held");
// CPU idle and with 10,000 held, on each instance.
async function holdRaw(url: string, count: number): Promise<Bun.Socket[]> {
	const since = formatUtcSeconds(now() + 3600);
	const sockets: Bun.Socket[] = [];
	for (let i = 0; i < count; i += 500) {
		const batch = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
			const n = i + j;
			const path = `/api/faxes?since=${encodeURIComponent(since)}&from=${encodeURIComponent(`HELD ${n}`)}&wait=30`;
			const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${AGENT}\r\nX-Forwarded-For: 10.${n >> 16}.${(n >> 8) & 255}.${n & 255}\r\n\r\n`;
			return Bun.connect({
				hostname: "127.0.0.1",
				port: portOf(url),
				socket: { open: (s) => void s.write(request), data() {} },
			});
		});
		sockets.push(...(await Promise.all(batch)));
	}
	return sockets;
}
async function cpuOver(pid: number, seconds: number): Promise<number> {
	const before = cpuSeconds(pid);
	await Bun.sleep(seconds * 1000);
	return cpuSeconds(pid) - before;
}
const cpu: Record<string, [number, number]> = {};
for (const [name, server] of [
	["standby", onStandby],
	["sqlite", onSqlite],
] as const) {
	const idle = await cpuOver(server.child.pid, 5);
	const sockets = await holdRaw(server.url, HELD);
	await until(`${HELD} held`, async () => (await heldOn(server.adminUrl)) >= HELD, 60_000);
	const held = await cpuOver(server.child.pid, 5);
	for (const socket of sockets) socket.end();
	cpu[name] = [idle, held];
}

for (const server of [onStandby, onSqlite]) {
	server.child.kill("SIGTERM");
	await server.child.exited;
}

const runs: FaultRun[] = [];
for (const [i, fault] of FAULTS.entries()) {
	console.error(`bench:cluster: ${fault.name}`);
	runs.push(await runFault(site, fault, `+1555010010${i}`));
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Acknowledged faxes not listed, listed twice, and listed faxes never acknowledged. */
function notListedOnce(run: FaultRun): number {
	const listed = new Set(run.listed);
	const acknowledged = new Set(run.acknowledged.map((ack) => ack.slug));
	const missing = [...acknowledged].filter((slug) => !listed.has(slug)).length;
	const strangers = [...listed].filter((slug) => !acknowledged.has(slug)).length;
	return missing + strangers + (run.listed.length - listed.size);
}
const table = [
	[
		"fault",
		"not 200",
		"new leader",
		"write outage",
		"back streaming",
		"not listed once",
		"failed ingests (s each)",
	],
	...runs.map((run) => [
		run.fault,
		`${run.failedReads.length} of ${run.reads}`,
		run.newLeaderAt === null ? "-" : seconds(run.newLeaderAt),
		seconds(run.writeOutageMs),
		seconds(run.rejoinMs),
		`${notListedOnce(run)} of ${run.acknowledged.length}`,
		run.failedAttempts.map((a) => (a.ms / 1000).toFixed(1)).join(", ") || "-",
	]),
].map((row) => row.map((cell, i) => cell.padEnd([22, 13, 11, 13, 15, 16, 0][i] ?? 0)).join(" "));

console.log(`bench:cluster, ${SAMPLES} samples, ${SEEDED} faxes seeded
commit -> listed on a standby's API: p50 ${ms(percentile(listedMs, 50))}, p99 ${ms(percentile(listedMs, 99))}
commit -> a wait held on a standby answers: p50 ${ms(percentile(waitMs, 50))}, p99 ${ms(percentile(waitMs, 99))}
list (?limit=100), standby/SQLite per round (requests/s): ${roundsText(rates.list)}; median ratio ${rates.list.median.toFixed(2)}; CPU per answer, SQLite/standby, median ${rates.list.cpuMedian.toFixed(2)}
poll (since, If-None-Match -> 304), standby/SQLite per round: ${roundsText(rates.poll)}; median ratio ${rates.poll.median.toFixed(2)}; CPU per answer, SQLite/standby, median ${rates.poll.cpuMedian.toFixed(2)}
CPU over 5 s, nothing held / ${HELD} held: standby ${cpu.standby?.[0]?.toFixed(2)} s / ${cpu.standby?.[1]?.toFixed(2)} s, SQLite ${cpu.sqlite?.[0]?.toFixed(2)} s / ${cpu.sqlite?.[1]?.toFixed(2)} s

${table.join("\n")}

${runs.map(describeRun).join("\n\n")}`);

await primary.close();
await sqlite.close();
await site.stop();
rmSync(dir, { recursive: true, force: true });
