/**
 * `bun run bench:pages`: the site's pages beside the API (issue 56), on a site
 * as busy as a test site gets: BENCH_CALLS (100) real calls of the last 24
 * hours listed, each handed over with its HylaFAX session log as faxrcvd does
 * (`fax receive-hylafax NAME < recvq/NAME 3< log/cCOMMID`, the real call of
 * fixtures/hylafax/clean), so that each fax has its transmission report; and
 * BENCH_OLD_FAXES (300) faxes of one sender from 26 hours to 4 days ago
 * (`fax import`), past memory's 25-hour window. One server process
 * (bin/server.ts) per engine: SQLite, then PostgreSQL 15 (the same faxes,
 * `fax copy-database`) reached through testkit/delay-proxy.ts, which holds
 * each chunk BENCH_DELAY_MS (1) in each direction, as a database in another
 * zone is. The server trusts the load generator as its proxy, so
 * X-Forwarded-For gives each request its client address; the rate limit is
 * raised so that answers stay 200; the access log goes at LOG_LEVEL=info into
 * /dev/null.
 *
 * Each measure runs beside its API yardstick, in alternating rounds
 * (BENCH_SECONDS, 5, in all for each), on the raw-socket load generator of
 * bench/load.ts:
 * - a. `GET /faxtest` against `GET /api/faxes?limit=100`, requests/s,
 *   BENCH_CONNECTIONS (16) connections, each request from another address;
 * - b. `GET /faxtest/{slug}` against `GET /api/faxes/{slug}`, the same, the
 *   listed faxes in turn;
 * - c. one client (one address) floods `/faxtest` on 8 connections while
 *   another polls `/api/faxes?limit=100` on 1: the poll's p99 against its p99
 *   while the same client floods `/api/faxes?limit=100` instead; beside them
 *   the poll alone (no flood);
 * - on PostgreSQL also f. that client reloading `/faxtest` on one connection
 *   against it flooding the API on one connection, and e. many clients
 *   (BENCH_CONNECTIONS connections) flooding lists only the database can
 *   answer (`from` the old faxes' sender, `since` 5 days back) against the
 *   same flood of lists memory answers (`from` the calls' sender, `since` in
 *   the window), the poll's p99 in each. Each list of a flood has a `since` of
 *   its own, so no list answer is remembered from an earlier request.
 * Percentiles are over every answer of a measure's rounds.
 * Options (environment): BENCH_SECONDS (5), BENCH_CONNECTIONS (16),
 * BENCH_CALLS (100), BENCH_OLD_FAXES (300), BENCH_DELAY_MS (1),
 * BENCH_ENGINES (sqlite,postgres); `--short` checks the bench itself in
 * under a minute (10 calls, 1 s each).
 */
import { copyFileSync, mkdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type PostgresServer, startPostgres } from "../testkit/postgres.ts";
import { runCommand } from "../testkit/processes.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, type LoadTarget, mergeLoads, runLoad } from "./load.ts";

const SHORT = process.argv.includes("--short");
const SECONDS = Number(process.env.BENCH_SECONDS ?? (SHORT ? 1 : 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const CALLS = Number(process.env.BENCH_CALLS ?? (SHORT ? 10 : 100));
const OLD_FAXES = Number(process.env.BENCH_OLD_FAXES ?? 300);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 1);
const ENGINES = (process.env.BENCH_ENGINES ?? "sqlite,postgres").split(",");
/** Each comparison runs in this many alternating rounds, so the shared machine's drift falls on both alike. */
const ROUNDS = 2;
/** The flooding client's connections (issue 56: one visitor holding 8). */
const FLOOD_CONNECTIONS = 8;
/** The poll starts this long after its flood, so it meets the flood at full strength. */
const FLOOD_LEAD_MS = 200;
const INGEST_WORKERS = 3;

const ROOT = join(import.meta.dir, "..");
const CALL = join(ROOT, "fixtures/hylafax/clean");
/** The station ID (TSI) the fixture's sender gave: the sender of every call. */
const CALL_SENDER = "IAXmodem";
const OLD_SENDER = "+1 555 987 6543";
const CLIENTS = Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const FLOODER = ["198.51.100.9"];
const POLLER = ["203.0.113.7"];
const POLL = "/api/faxes?limit=100";
const URLS = { CDN_BASE_URL: "https://cdn.bench.example", SITE_BASE_URL: "https://www.bench.example" };
const HOUR = 3600;
const DAY = 24 * HOUR;

type Server = Awaited<ReturnType<typeof startServerProcess>> & { port: number };

interface Site {
	dir: string;
	databasePath: string;
	storageDir: string;
	slugs: string[];
}

/** A load result with the server's CPU time per answer (all its threads). */
interface Measured extends LoadResult {
	cpuMicrosPerAnswer: number;
	bytes: number;
}

/** A page against its API yardstick, each combined over the rounds. */
interface Throughput {
	id: "a" | "b";
	page: Measured;
	api: Measured;
}

/** Another client's poll beside a flood (none for the poll alone). */
interface Beside {
	poll: LoadResult;
	flood: LoadResult | null;
}

interface EngineResult {
	name: string;
	throughput: Throughput[];
	beside: Record<string, Beside>;
	note: string;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function fax(args: string[], env: Record<string, string>): Promise<string> {
	const result = await runCommand([process.execPath, "bin/fax.ts", ...args], { cwd: ROOT, env });
	if (result.code !== 0) throw new Error(`fax ${args[0]} exited with ${result.code}: ${result.stderr}`);
	return result.stdout;
}

/**
 * One call as HylaFAX's faxrcvd hands it over (deploy/receivers/hylafax/hand-over):
 * the queue file on standard input, its session log on descriptor 3, the file
 * last written at the end of the call.
 */
async function handOver(site: Site, n: number, endOfCall: number): Promise<string> {
	const name = `fax${String(n).padStart(9, "0")}.tif`;
	const tif = join(site.dir, "recvq", name);
	const log = join(site.dir, "log", `c${String(n).padStart(9, "0")}`);
	copyFileSync(join(CALL, "received.tif"), tif);
	copyFileSync(join(CALL, "receiver.log"), log);
	utimesSync(tif, endOfCall, endOfCall);
	utimesSync(log, endOfCall, endOfCall);
	const result = await runCommand(
		[
			"sh",
			"-c",
			`exec "$0" bin/fax.ts receive-hylafax "$1" < "$2" 3< "$3"`,
			process.execPath,
			name,
			tif,
			log,
		],
		{ cwd: ROOT, env: { DATABASE_PATH: site.databasePath, STORAGE_DIR: site.storageDir } },
	);
	const slug = / listed as (fax_\w+) /.exec(result.stdout)?.[1];
	if (result.code !== 0 || slug === undefined)
		throw new Error(`fax receive-hylafax ${name}: ${result.stdout}${result.stderr}`);
	return slug;
}

/** The calls, received over the last 23 hours, and the old faxes, in a SQLite file. */
async function buildSite(dir: string): Promise<Site> {
	for (const folder of ["recvq", "log"]) mkdirSync(join(dir, folder), { recursive: true });
	const site: Site = {
		dir,
		databasePath: join(dir, "site.sqlite"),
		storageDir: join(dir, "storage"),
		slugs: [],
	};
	const began = performance.now();
	const now = nowSeconds();
	// The newest 5 minutes ago, the oldest 23 hours: all listed for the whole run.
	const endOfCall = (i: number) => now - 300 - Math.floor((i * 23 * HOUR) / CALLS);
	const slugs: string[] = new Array(CALLS);
	// The first alone: it creates the database, which a second process must not race.
	slugs[0] = await handOver(site, 1, endOfCall(0));
	let next = 1;
	const worker = async () => {
		for (let i = next++; i < CALLS; i = next++) slugs[i] = await handOver(site, i + 1, endOfCall(i));
	};
	// Every worker ends before a failure is thrown: none writes into the folder once it is removed.
	const ended = await Promise.allSettled(Array.from({ length: INGEST_WORKERS }, worker));
	for (const result of ended) if (result.status === "rejected") throw result.reason;
	site.slugs = slugs;
	// The old faxes: from 26 hours to 4 days ago, all of one sender.
	const span = 4 * DAY - 26 * HOUR;
	const old = Array.from({ length: OLD_FAXES }, (_, i) => ({
		source: "phone",
		sender: OLD_SENDER,
		received_at: iso(now - 26 * HOUR - Math.floor((i * span) / OLD_FAXES)),
		page_count: 2,
		file_size: 2494,
	}));
	const oldFile = join(dir, "old-faxes.json");
	await Bun.write(oldFile, JSON.stringify(old));
	await fax(["import", oldFile], { DATABASE_PATH: site.databasePath, STORAGE_DIR: site.storageDir });
	console.error(
		`site: ${CALLS} calls handed over with their session logs and ${OLD_FAXES} old faxes imported in ${((performance.now() - began) / 1000).toFixed(1)} s`,
	);
	return site;
}

async function startSiteServer(site: Site, database: Record<string, string>): Promise<Server> {
	const started = await startServerProcess(
		{
			...URLS,
			...database,
			STORAGE_DIR: site.storageDir,
			SEED_DEMO: "0",
			PURGE_INTERVAL: "0",
			TRUST_PROXY: "127.0.0.1",
			RATE_LIMIT_PER_MINUTE: "1000000000",
			LOG_LEVEL: "info",
		},
		{ logFile: "/dev/null" },
	);
	return { ...started, port: Number(new URL(started.url).port) };
}

/** CPU time of every thread of the process so far, in microseconds (utime + stime, clock ticks of 10 ms). */
async function cpuMicros(pid: number): Promise<number> {
	const stat = await Bun.file(`/proc/${pid}/stat`).text();
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function loadAverage(): Promise<string> {
	return (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
}

/** A request the bench loads, checked first: 200, framed by Content-Length (bench/load.ts reads no chunks). */
async function answer(server: Server, path: string): Promise<string> {
	const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
		headers: { "user-agent": "testfax-bench/1.0", "accept-encoding": "identity" },
	});
	const body = await response.text();
	if (response.status !== 200 || response.headers.get("content-length") === null)
		throw new Error(
			`${path} answered ${response.status} (Content-Length ${response.headers.get("content-length")}), not a 200 the load generator can frame`,
		);
	return body;
}

/** The site as the bench expects it: every call listed on /faxtest, each page with its report, the old sender's lists from the database. */
async function checkSite(server: Server, site: Site): Promise<void> {
	const listPage = await answer(server, "/faxtest");
	const missing = site.slugs.filter((slug) => !listPage.includes(slug));
	if (missing.length > 0) throw new Error(`/faxtest lacks ${missing.length} of the ${CALLS} calls`);
	const listed = JSON.parse(await answer(server, POLL)) as unknown[];
	if (listed.length !== Math.min(100, CALLS)) throw new Error(`${POLL} lists ${listed.length} faxes`);
	const page = await answer(server, `/faxtest/${site.slugs[0]}`);
	if (!page.includes("All good: 2 pages arrived complete."))
		throw new Error("the fax page shows no transmission report: was the session log handed over?");
	const old = JSON.parse(await answer(server, databaseLists(0)[0] as string)) as unknown[];
	if (old.length !== Math.min(100, OLD_FAXES))
		throw new Error(`the old sender's list has ${old.length} faxes`);
	const recent = JSON.parse(await answer(server, memoryLists(0)[0] as string)) as unknown[];
	if (recent.length === 0) throw new Error("the calls' sender's list from memory is empty");
}

async function load(
	server: Server,
	target: Omit<LoadTarget, "port">,
	connections: number,
): Promise<Measured> {
	const before = await cpuMicros(server.child.pid);
	const result = await runLoad({ port: server.port, ...target }, SECONDS / ROUNDS, connections);
	const used = (await cpuMicros(server.child.pid)) - before;
	return { ...result, cpuMicrosPerAnswer: used / result.requests, bytes: 0 };
}

/** Rounds as one result (mergeLoads), with the server's CPU per answer over all of them. */
function combinedMeasured(rounds: Measured[]): Measured {
	const result = mergeLoads(rounds);
	const cpu = rounds.reduce((sum, r) => sum + r.cpuMicrosPerAnswer * r.requests, 0);
	return { ...result, cpuMicrosPerAnswer: cpu / result.requests, bytes: 0 };
}

/** a and b: each page against its API yardstick, in alternating rounds. */
async function measureThroughput(server: Server, site: Site): Promise<Throughput[]> {
	const pairs = [
		{ id: "a" as const, page: ["/faxtest"], api: [POLL] },
		{
			id: "b" as const,
			page: site.slugs.map((slug) => `/faxtest/${slug}`),
			api: site.slugs.map((slug) => `/api/faxes/${slug}`),
		},
	];
	const results: Throughput[] = [];
	for (const pair of pairs) {
		const rounds: { page: Measured[]; api: Measured[] } = { page: [], api: [] };
		for (const paths of [pair.page, pair.api])
			await runLoad({ port: server.port, paths, clients: CLIENTS }, 1, CONNECTIONS);
		for (let round = 0; round < ROUNDS; round++) {
			rounds.page.push(await load(server, { paths: pair.page, clients: CLIENTS }, CONNECTIONS));
			rounds.api.push(await load(server, { paths: pair.api, clients: CLIENTS }, CONNECTIONS));
		}
		const [page, api] = [combinedMeasured(rounds.page), combinedMeasured(rounds.api)];
		page.bytes = (await answer(server, pair.page[0] as string)).length;
		api.bytes = (await answer(server, pair.api[0] as string)).length;
		results.push({ id: pair.id, page, api });
		console.error(
			`${pair.id}: ${pair.page[0]} ${(page.perSecond / api.perSecond).toFixed(3)}× ${pair.api[0]}`,
		);
	}
	return results;
}

/** Lists only the database answers: the old sender's, `since` 5 days back, each request a second of its own. */
function databaseLists(round: number): string[] {
	const since = nowSeconds() - 5 * DAY + round * 10_000;
	const from = encodeURIComponent(OLD_SENDER);
	return Array.from(
		{ length: 10_000 },
		(_, i) => `/api/faxes?from=${from}&since=${iso(since + i)}&limit=100`,
	);
}

/** The same lists memory answers: the calls' sender, `since` within the window. */
function memoryLists(round: number): string[] {
	const since = nowSeconds() - 23 * HOUR + round * 10_000;
	return Array.from(
		{ length: 10_000 },
		(_, i) => `/api/faxes?from=${CALL_SENDER}&since=${iso(since + i)}&limit=100`,
	);
}

interface Flood {
	id: string;
	/** The flood's requests for a round; null for the poll alone. */
	target: ((round: number) => Omit<LoadTarget, "port">) | null;
	connections: number;
}

function floods(engine: string): Flood[] {
	const one = (path: string) => () => ({ paths: [path], clients: FLOODER });
	const all: Flood[] = [
		{ id: "alone", target: null, connections: 0 },
		{ id: "api8", target: one(POLL), connections: FLOOD_CONNECTIONS },
		{ id: "pages8", target: one("/faxtest"), connections: FLOOD_CONNECTIONS },
	];
	if (engine === "sqlite") return all;
	return [
		...all,
		{ id: "api1", target: one(POLL), connections: 1 },
		{ id: "pages1", target: one("/faxtest"), connections: 1 },
		{
			id: "memory",
			target: (round) => ({ paths: memoryLists(round), clients: CLIENTS }),
			connections: CONNECTIONS,
		},
		{
			id: "database",
			target: (round) => ({ paths: databaseLists(round), clients: CLIENTS }),
			connections: CONNECTIONS,
		},
	];
}

/** The poll on one connection for a round, with the flood (if any) on from a little before until after it. */
async function pollBeside(server: Server, flood: Flood, round: number): Promise<Beside> {
	const poll = async () => {
		if (flood.target !== null) await Bun.sleep(FLOOD_LEAD_MS);
		return runLoad({ port: server.port, paths: [POLL], clients: POLLER }, SECONDS / ROUNDS, 1);
	};
	const flooding =
		flood.target === null
			? Promise.resolve(null)
			: runLoad(
					{ port: server.port, ...flood.target(round) },
					SECONDS / ROUNDS + (2 * FLOOD_LEAD_MS) / 1000,
					flood.connections,
				);
	const [polled, flooded] = await Promise.all([poll(), flooding]);
	return { poll: polled, flood: flooded };
}

/** c (and e, f on PostgreSQL): the poll beside each flood, the floods in alternating rounds. */
async function measureFloods(server: Server, engine: string): Promise<Record<string, Beside>> {
	const all = floods(engine);
	const rounds: Record<string, Beside[]> = Object.fromEntries(all.map((flood) => [flood.id, []]));
	for (const flood of all)
		if (flood.target !== null)
			await runLoad({ port: server.port, ...flood.target(ROUNDS) }, 0.5, flood.connections);
	for (let round = 0; round < ROUNDS; round++)
		for (const flood of all) rounds[flood.id]?.push(await pollBeside(server, flood, round));
	const result: Record<string, Beside> = {};
	for (const [id, beside] of Object.entries(rounds)) {
		const floodRounds = beside.map((b) => b.flood).filter((f) => f !== null);
		result[id] = {
			poll: mergeLoads(beside.map((b) => b.poll)),
			flood: floodRounds.length > 0 ? mergeLoads(floodRounds) : null,
		};
		console.error(`${engine} ${id}: poll p99 ${result[id]?.poll.p99ms.toFixed(2)} ms`);
	}
	return result;
}

async function measureEngine(name: string, server: Server, site: Site, note: string): Promise<EngineResult> {
	await checkSite(server, site);
	const throughput = await measureThroughput(server, site);
	const beside = await measureFloods(server, name);
	return { name, throughput, beside, note };
}

/** Mean time of a query, in ms, over `url`. */
async function roundTripMs(url: string): Promise<number> {
	const sql = new SQL(url);
	try {
		await sql`SELECT 1`;
		const began = performance.now();
		for (let i = 0; i < 50; i++) await sql`SELECT 1`;
		return (performance.now() - began) / 50;
	} finally {
		await sql.close();
	}
}

/** testkit/delay-proxy.ts as a process of its own, in front of `targetPort`. */
async function startDelayProxy(targetPort: number): Promise<{ port: number; child: Bun.Subprocess }> {
	const child = Bun.spawn(
		[process.execPath, join(ROOT, "testkit/delay-proxy.ts"), String(targetPort), String(DELAY_MS)],
		{
			stdout: "pipe",
			stderr: "inherit",
		},
	);
	const reader = child.stdout.getReader();
	let text = "";
	while (!text.includes("\n")) {
		const { value, done } = await reader.read();
		if (done) throw new Error(`the delay proxy exited: ${text}`);
		text += new TextDecoder().decode(value);
	}
	reader.releaseLock();
	return { port: Number(/listening on 127\.0\.0\.1:(\d+)/.exec(text)?.[1]), child };
}

async function benchSqlite(site: Site): Promise<EngineResult> {
	const server = await startSiteServer(site, { DATABASE_PATH: site.databasePath });
	try {
		return await measureEngine("sqlite", server, site, "SQLite");
	} finally {
		server.child.kill();
		await server.child.exited;
	}
}

async function benchPostgres(site: Site): Promise<EngineResult> {
	const postgres: PostgresServer = await startPostgres();
	let proxy: { port: number; child: Bun.Subprocess } | null = null;
	let server: Server | null = null;
	try {
		const url = await postgres.createDatabase();
		await fax(["copy-database", site.databasePath], { DATABASE_URL: url, STORAGE_DIR: site.storageDir });
		proxy = await startDelayProxy(postgres.port);
		const delayed = url.replace(`:${postgres.port}/`, `:${proxy.port}/`);
		const note = `PostgreSQL ${DELAY_MS} ms away (a query's round trip ${(await roundTripMs(delayed)).toFixed(2)} ms through the proxy, ${(await roundTripMs(url)).toFixed(2)} ms direct)`;
		console.error(note);
		server = await startSiteServer(site, { DATABASE_URL: delayed });
		return await measureEngine("postgres", server, site, note);
	} finally {
		server?.child.kill();
		await server?.child.exited;
		proxy?.child.kill();
		await proxy?.child.exited;
		await postgres.stop();
	}
}

const count = (value: number) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en"));
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const atLeast = (ratio: number, target: number) =>
	`${ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2)} ${ratio >= target ? "✓" : "✗"} (≥ ${target})`;
const atMost = (ratio: number, target: number) =>
	`${ratio.toFixed(1)} ${ratio <= target ? "✓" : "✗"} (≤ ${target})`;

const THROUGHPUT_ROWS = {
	a: "a. `GET /faxtest` vs `GET /api/faxes?limit=100`, requests/s",
	b: "b. `GET /faxtest/{slug}` vs `GET /api/faxes/{slug}`, requests/s",
} as const;

/** Flood rows: the flood measured, its yardstick, the words of the row. */
const FLOOD_ROWS = [
	{
		flood: "pages8",
		yardstick: "api8",
		name: "c. another client's poll p99, one client flooding `/faxtest` vs the API (8 connections)",
	},
	{
		flood: "pages1",
		yardstick: "api1",
		name: "f. the same, that client reloading `/faxtest` vs the API on 1 connection",
	},
	{
		flood: "database",
		yardstick: "memory",
		name: `e. the poll's p99, many clients (${CONNECTIONS} connections) flooding lists only the database answers vs lists from memory`,
	},
] as const;

const FLOOD_NAMES: Record<string, string> = {
	alone: "none (the poll alone)",
	api8: "one client, `/api/faxes?limit=100`, 8 connections",
	pages8: "one client, `/faxtest`, 8 connections",
	api1: "one client, `/api/faxes?limit=100`, 1 connection",
	pages1: "one client, `/faxtest`, 1 connection",
	memory: `many clients, lists from memory, ${CONNECTIONS} connections`,
	database: `many clients, lists from the database, ${CONNECTIONS} connections`,
};

function unexpected(engine: EngineResult): string[] {
	const runs: [string, LoadResult | null][] = [
		...engine.throughput.flatMap((t): [string, LoadResult][] => [
			[`${t.id} page`, t.page],
			[`${t.id} API`, t.api],
		]),
		...Object.entries(engine.beside).flatMap(([id, b]): [string, LoadResult | null][] => [
			[`${id} poll`, b.poll],
			[`${id} flood`, b.flood],
		]),
	];
	return runs.flatMap(([label, result]) => {
		const others = Object.keys(result?.statuses ?? {}).filter((status) => status !== "200");
		return others.length === 0 ? [] : [`UNEXPECTED STATUS: ${engine.note} ${label}: ${others.join(", ")}`];
	});
}

function report(engines: EngineResult[]): string {
	const lines = ["| engine | measure | measured | yardstick | ratio (target) |", "| - | - | -: | -: | - |"];
	for (const engine of engines) {
		const label = engine.name === "sqlite" ? "SQLite" : `PostgreSQL, ${DELAY_MS} ms away`;
		for (const t of engine.throughput)
			lines.push(
				`| ${label} | ${THROUGHPUT_ROWS[t.id]} | ${count(t.page.perSecond)} | ${count(t.api.perSecond)} | ${atLeast(t.page.perSecond / t.api.perSecond, 0.5)} |`,
			);
		for (const row of FLOOD_ROWS) {
			const [flood, yardstick] = [engine.beside[row.flood], engine.beside[row.yardstick]];
			if (flood === undefined || yardstick === undefined) continue;
			lines.push(
				`| ${label} | ${row.name} | ${ms(flood.poll.p99ms)} ms | ${ms(yardstick.poll.p99ms)} ms | ${atMost(flood.poll.p99ms / yardstick.poll.p99ms, 2)} |`,
			);
		}
		const alone = engine.beside.alone;
		if (alone)
			lines.push(
				`| ${label} | yardstick: the poll alone (no flood), p50 / p99 | ${ms(alone.poll.p50ms)} / ${ms(alone.poll.p99ms)} ms | | |`,
			);
	}
	lines.push(
		"\nEach run (server CPU: all its threads, per answer):\n",
		"| engine | load | bytes | requests/s | p50 / p99 ms | server CPU µs per answer |",
		"| - | - | -: | -: | -: | -: |",
	);
	for (const engine of engines) {
		for (const t of engine.throughput)
			for (const [what, result] of [
				[t.id === "a" ? "`GET /faxtest`" : "`GET /faxtest/{slug}`", t.page],
				[t.id === "a" ? "`GET /api/faxes?limit=100`" : "`GET /api/faxes/{slug}`", t.api],
			] as const)
				lines.push(
					`| ${engine.name} | ${what}, ${CONNECTIONS} connections | ${result.bytes} | ${count(result.perSecond)} | ${ms(result.p50ms)} / ${ms(result.p99ms)} | ${count(result.cpuMicrosPerAnswer)} |`,
				);
	}
	lines.push(
		"\nThe poll (another client, `/api/faxes?limit=100`, 1 connection) beside each flood:\n",
		"| engine | flood | flood requests/s | poll requests/s | poll p50 / p99 ms |",
		"| - | - | -: | -: | -: |",
	);
	for (const engine of engines)
		for (const [id, beside] of Object.entries(engine.beside))
			lines.push(
				`| ${engine.name} | ${FLOOD_NAMES[id]} | ${beside.flood === null ? "—" : count(beside.flood.perSecond)} | ${count(beside.poll.perSecond)} | ${ms(beside.poll.p50ms)} / ${ms(beside.poll.p99ms)} |`,
			);
	for (const engine of engines) lines.push(...unexpected(engine));
	return lines.join("\n");
}

const dir = join(tmpdir(), `testfax-bench-pages-${process.pid}`);
try {
	mkdirSync(dir, { recursive: true });
	const loadBefore = await loadAverage();
	console.log(
		`load: ${CONNECTIONS} connections for requests/s, a flood of ${FLOOD_CONNECTIONS} beside a poll of 1, ${SECONDS} s per load in ${ROUNDS} alternating rounds, the load generator on the same machine (${navigator.hardwareConcurrency} cores)`,
	);
	const site = await buildSite(dir);
	const engines: EngineResult[] = [];
	if (ENGINES.includes("sqlite")) engines.push(await benchSqlite(site));
	if (ENGINES.includes("postgres")) engines.push(await benchPostgres(site));
	console.log(
		`site: ${CALLS} calls (fixtures/hylafax/clean, each with its session log) of the last 23 hours, ${OLD_FAXES} faxes 26 hours to 4 days old; ${engines.map((e) => e.note).join("; ")}; load average ${loadBefore} → ${await loadAverage()}\n`,
	);
	console.log(report(engines));
} finally {
	rmSync(dir, { recursive: true, force: true });
}
