/**
 * The API under load beside its yardsticks, at each database size:
 * - ceiling: Bun.serve with the service's Redis round trip, answering the body
 *   of each URL computed once (bench/ceiling-server.ts);
 * - naive: Bun.serve with the Redis round trip, one prepared SQLite query and
 *   JSON.stringify per request (bench/naive-server.ts);
 * - the service with the Redis rate limit (the production shape: instances
 *   behind a proxy share one count), and the same service embedded (no Redis,
 *   the in-process limit) on the same database: Redis shape / embedded shape
 *   is what the shared count costs;
 * - the 100-fax poll compressed (br, gzip) against the same poll uncompressed.
 * Every server answers the same bytes as the service (checked before loading).
 * The servers of one comparison are loaded in alternating rounds; beside
 * requests per second the table gives each server's CPU time per answer
 * (from /proc), which other jobs on the machine distort less.
 * Clients come from 10,000 addresses through a trusted X-Forwarded-For; the
 * limit is raised so answers stay 200, and one address is used up for the 429.
 * The service logs at LOG_LEVEL=info into a file, as in a container; at the
 * first size the cost of that access log is measured against the same service
 * at LOG_LEVEL=silent.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { FaxStore, openDatabase } from "../lib/db/index.ts";
import { SECURITY_HEADERS } from "../lib/http/index.ts";
import { startRedisServer } from "../testkit/redis-server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, runLoad } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SIZES = (process.env.BENCH_FAXES ?? "100000,1000000").split(",").map(Number);
const LOGGING_ROUNDS = 6;
/** Each comparison runs in this many alternating rounds, so the shared machine's drift falls on every server alike. */
const ROUNDS = 2;
const LIMIT = 1_000_000_000;
const SPREAD_SECONDS = 30 * 86_400 - 3600;
const CLIENTS = Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const USED_UP = "10.255.0.1";
const USED = [USED_UP];
const PREFIXES = { ceiling: "bench:ceiling:", naive: "bench:naive:", service: "bench:service:" } as const;
const SENDERS = ["+1 555 123 4567", "+49 30 12345678", "ACME 42", "john.doe@example.co.uk", null];
const URLS = { CDN_BASE_URL: "https://cdn.bench.example", SITE_BASE_URL: "https://www.bench.example" };

type Server = Awaited<ReturnType<typeof startServerProcess>> & { port: number };

interface Scenario {
	id: "list" | "poll" | "poll-br" | "poll-gzip" | "from" | "single" | "invalid" | "limited";
	name: string;
	path: string;
	/** The status every answer must have. */
	status: number;
	/** Whether the ceiling yardstick answers it (it keeps uncompressed bodies only). */
	ceiling: boolean;
	naive: boolean;
	clients: string[];
	/** Sent as Accept-Encoding. */
	encoding?: "br" | "gzip";
}

/** A load result with the server's CPU time per answer, which a busy machine distorts less than throughput. */
interface Measured extends LoadResult {
	cpuMicrosPerAnswer: number;
}

interface Row {
	scenario: Scenario;
	bytes: number;
	ceiling: Measured | null;
	naive: Measured | null;
	/** The service counting in Redis. */
	service: Measured;
	/** The same service counting in process memory; none for the 429, which its own count never reaches. */
	embedded: Measured | null;
}

export interface SizeResult {
	faxes: number;
	rows: Row[];
	rssMiB: { started: number; afterLoad: number };
	logging: LoggingCost | null;
	load: string;
}

/** The default list with the access log written to a file and with LOG_LEVEL=silent, summed over alternating rounds. */
interface LoggingCost {
	info: Measured[];
	silent: Measured[];
	lines: number;
}

const children: Bun.Subprocess[] = [];

async function start(script: string, env: Record<string, string>, logFile?: string): Promise<Server> {
	const started = await startServerProcess(env, { script, logFile });
	children.push(started.child);
	return { ...started, port: Number(new URL(started.url).port) };
}

async function stop(server: Server): Promise<void> {
	server.child.kill();
	await server.child.exited;
}

async function rssMiB(pid: number): Promise<number> {
	const status = await Bun.file(`/proc/${pid}/status`).text();
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time the process has used so far, in microseconds (Linux schedstat). */
async function cpuMicros(pid: number): Promise<number> {
	return Number((await Bun.file(`/proc/${pid}/schedstat`).text()).split(" ")[0]) / 1000;
}

async function loadAverage(): Promise<string> {
	return (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
}

async function buildDatabase(path: string, count: number): Promise<void> {
	const db = openDatabase(path);
	const store = new FaxStore(db);
	const now = Math.floor(Date.now() / 1000);
	await store.write(async (writer) => {
		for (let i = 0; i < count; i++) {
			const sender = SENDERS[i % SENDERS.length] ?? null;
			await writer.insert({
				slug: `fax_bench${i}`,
				source: i % 3 === 0 ? "email" : "phone",
				sender: sender === "ACME 42" ? `ACME ${i}` : sender,
				// i = 0 is the newest; the oldest is an hour short of 30 days.
				received_at: now - Math.floor((i / count) * SPREAD_SECONDS),
				page_count: i % 17 === 0 ? null : 1 + (i % 5),
				file_size: i % 17 === 0 ? null : 40_000 + i,
			});
		}
	});
	db.close();
}

function scenarios(): Scenario[] {
	// 90 minutes hold about 200 of the faxes at either size: the poll answers its 100, 31 KB.
	const since = `${new Date(Date.now() - 90 * 60_000).toISOString().slice(0, 19)}Z`;
	const poll = `/api/faxes?since=${since}&limit=100`;
	const all = { status: 200, ceiling: true, naive: true, clients: CLIENTS };
	const compressed = { ...all, ceiling: false, naive: false };
	return [
		{ id: "list", name: "`GET /api/faxes` (default, 20 faxes)", path: "/api/faxes", ...all },
		{ id: "poll", name: "poll: `since` 90 min ago, `limit=100`", path: poll, ...all },
		{ id: "poll-br", name: "the poll, `Accept-Encoding: br`", path: poll, ...compressed, encoding: "br" },
		{
			id: "poll-gzip",
			name: "the poll, `Accept-Encoding: gzip`",
			path: poll,
			...compressed,
			encoding: "gzip",
		},
		{ id: "from", name: "`from=<number>&limit=1`", path: "/api/faxes?from=%2B15551234567&limit=1", ...all },
		{ id: "single", name: "`GET /api/faxes/{slug}`", path: "/api/faxes/fax_bench0", ...all },
		{
			id: "invalid",
			name: "422 (`limit=0`)",
			path: "/api/faxes?limit=0",
			status: 422,
			ceiling: true,
			naive: false,
			clients: CLIENTS,
		},
		{
			id: "limited",
			name: "429 (window used up)",
			path: "/api/faxes",
			status: 429,
			ceiling: true,
			naive: false,
			clients: USED,
		},
	];
}

/** Status and body as sent (compressed when the scenario asks for it), and the security headers' values. */
async function fetchAnswer(server: Server, scenario: Scenario): Promise<[number, string, string[]]> {
	const response = await fetch(`http://127.0.0.1:${server.port}${scenario.path}`, {
		headers: {
			"user-agent": "testfax-bench/1.0",
			"x-forwarded-for": scenario.clients[0] ?? "",
			"accept-encoding": scenario.encoding ?? "identity",
		},
		decompress: false,
	});
	const security = Object.keys(SECURITY_HEADERS).map((name) => `${name}: ${response.headers.get(name)}`);
	return [response.status, Buffer.from(await response.arrayBuffer()).toString("latin1"), security];
}

async function sameAnswers(servers: Server[], scenario: Scenario): Promise<[number, string, string[]]> {
	const answers = await Promise.all(servers.map((server) => fetchAnswer(server, scenario)));
	const [first] = answers;
	const differs = ([status, body, security]: [number, string, string[]]) =>
		status !== first?.[0] || body !== first[1] || security.join("\n") !== first[2].join("\n");
	if (first === undefined || answers.some(differs)) {
		throw new Error(`the servers answer ${scenario.path} differently:\n${JSON.stringify(answers, null, 1)}`);
	}
	return first;
}

async function load(server: Server, scenario: Scenario, seconds = SECONDS): Promise<Measured> {
	const before = await cpuMicros(server.child.pid);
	const headers = scenario.encoding ? `Accept-Encoding: ${scenario.encoding}\r\n` : "";
	const result = await runLoad(
		{ port: server.port, paths: [scenario.path], clients: scenario.clients, headers },
		seconds,
		CONNECTIONS,
	);
	const used = (await cpuMicros(server.child.pid)) - before;
	return { ...result, cpuMicrosPerAnswer: used / result.requests };
}

/** Rounds of one server as one result: requests per second over all of them, the mean p50, the worst p99. */
function combined(rounds: Measured[]): Measured {
	const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
	const seconds = rounds.reduce((sum, r) => sum + r.requests / r.perSecond, 0);
	const statuses: Record<number, number> = {};
	for (const round of rounds)
		for (const [status, count] of Object.entries(round.statuses))
			statuses[Number(status)] = (statuses[Number(status)] ?? 0) + count;
	return {
		requests,
		perSecond: requests / seconds,
		p50ms: rounds.reduce((sum, r) => sum + r.p50ms, 0) / rounds.length,
		p99ms: Math.max(...rounds.map((r) => r.p99ms)),
		statuses,
		cpuMicrosPerAnswer: rounds.reduce((sum, r) => sum + r.cpuMicrosPerAnswer * r.requests, 0) / requests,
	};
}

/** Loads the servers in turn, ROUNDS times over, SECONDS in all for each. */
async function alternating(servers: Server[], scenario: Scenario): Promise<Measured[]> {
	const rounds: Measured[][] = servers.map(() => []);
	for (let round = 0; round < ROUNDS; round++) {
		for (const [i, server] of servers.entries())
			rounds[i]?.push(await load(server, scenario, SECONDS / ROUNDS));
	}
	return rounds.map(combined);
}

async function warmUp(server: Server, all: Scenario[]): Promise<void> {
	await runLoad({ port: server.port, paths: all.map((s) => s.path), clients: CLIENTS }, 2, CONNECTIONS);
}

/**
 * The access log's cost: the default list against the service at
 * LOG_LEVEL=info writing into a file and at LOG_LEVEL=silent, in alternating
 * rounds so that the shared machine's drift falls on both alike.
 */
async function benchLogging(
	env: Record<string, string>,
	logFile: string,
	defaultList: Scenario,
): Promise<LoggingCost> {
	const info = await start("bin/server.ts", { ...env, LOG_LEVEL: "info" }, logFile);
	const silent = await start("bin/server.ts", { ...env, LOG_LEVEL: "silent" });
	await warmUp(info, [defaultList]);
	await warmUp(silent, [defaultList]);
	const cost: LoggingCost = { info: [], silent: [], lines: 0 };
	for (let round = 0; round < LOGGING_ROUNDS; round++) {
		cost.info.push(await load(info, defaultList));
		cost.silent.push(await load(silent, defaultList));
	}
	await Promise.all([stop(info), stop(silent)]);
	const text = await Bun.file(logFile).text();
	cost.lines = text.split("\n").length - 1;
	rmSync(logFile, { force: true });
	return cost;
}

/** The settings every server of a comparison shares: the rate limit is raised so answers stay 200. */
const COMMON_ENV = { ...URLS, SEED_DEMO: "0", PURGE_INTERVAL: "0", RATE_LIMIT_PER_MINUTE: String(LIMIT) };

interface Servers {
	service: Server;
	embedded: Server;
	ceiling: Server;
	naive: Server;
}

/** The servers that answer the scenario: the yardsticks leave out what they do not serve. */
function serversOf(servers: Servers, scenario: Scenario) {
	return {
		service: servers.service,
		// The used-up window lives in Redis: the embedded service's own count never reaches it.
		embedded: scenario.clients !== USED ? servers.embedded : null,
		ceiling: scenario.ceiling ? servers.ceiling : null,
		naive: scenario.naive ? servers.naive : null,
	};
}

/** The ceiling (answering the bodies the service gave) and the naive yardstick, on the service's Redis. */
async function startYardsticks(
	dir: string,
	service: Server,
	all: Scenario[],
	redisUrl: string,
	databasePath: string,
): Promise<Pick<Servers, "ceiling" | "naive">> {
	const bodies: Record<string, [number, string]> = {};
	// The ceiling's 429 comes from its own Redis count, like the service's.
	for (const scenario of all)
		if (scenario.ceiling && scenario.clients !== USED)
			bodies[scenario.path] = (await fetchAnswer(service, scenario)).slice(0, 2) as [number, string];
	const bodiesPath = join(dir, "bodies.json");
	await Bun.write(bodiesPath, JSON.stringify(bodies));
	const redisEnv = { ...COMMON_ENV, REDIS_URL: redisUrl };
	const ceiling = await start("bench/ceiling-server.ts", {
		...redisEnv,
		BODIES: bodiesPath,
		RATE_LIMIT_PREFIX: PREFIXES.ceiling,
	});
	const naive = await start("bench/naive-server.ts", {
		...redisEnv,
		DATABASE_PATH: databasePath,
		RATE_LIMIT_PREFIX: PREFIXES.naive,
	});
	return { ceiling, naive };
}

/** Each scenario against the servers that answer it, in alternating rounds. */
async function measureRows(faxes: number, servers: Servers, all: Scenario[]): Promise<Row[]> {
	const rows: Row[] = [];
	for (const scenario of all) {
		const bytes = Buffer.byteLength((await fetchAnswer(servers.service, scenario))[1], "latin1");
		const named = Object.entries(serversOf(servers, scenario)).filter(
			(entry): entry is [string, Server] => entry[1] !== null,
		);
		const results = await alternating(
			named.map(([, server]) => server),
			scenario,
		);
		const of = (name: string) => results[named.findIndex(([key]) => key === name)] ?? null;
		const row: Row = {
			scenario,
			bytes,
			service: of("service") as Measured,
			embedded: of("embedded"),
			ceiling: of("ceiling"),
			naive: of("naive"),
		};
		rows.push(row);
		const share = row.embedded ? (row.service.perSecond / row.embedded.perSecond).toFixed(2) : "—";
		console.error(`${faxes}: ${scenario.name}: Redis shape ${share}× embedded`);
	}
	return rows;
}

export async function benchSize(
	dir: string,
	faxes: number,
	redisUrl: string,
	measureLogging: boolean,
): Promise<SizeResult> {
	const databasePath = join(dir, `bench-${faxes}.sqlite`);
	const built = performance.now();
	await buildDatabase(databasePath, faxes);
	console.error(`${faxes} faxes built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
	const redis = new Redis(redisUrl);
	const loadBefore = await loadAverage();
	try {
		const serviceEnv = {
			...COMMON_ENV,
			DATABASE_PATH: databasePath,
			REDIS_URL: redisUrl,
			RATE_LIMIT_PREFIX: PREFIXES.service,
			TRUST_PROXY: "127.0.0.1",
			LOG_LEVEL: "info",
		};
		const logFile = join(dir, "access.log");
		const service = await start("bin/server.ts", serviceEnv, logFile);
		const started = await rssMiB(service.child.pid);
		const all = scenarios();
		for (const prefix of Object.values(PREFIXES)) await redis.set(prefix + USED_UP, LIMIT * 2, "PX", 600_000);
		const { ceiling, naive } = await startYardsticks(dir, service, all, redisUrl, databasePath);
		// The same service and database without REDIS_URL, logging alike (into a file of its own).
		const embeddedLog = join(dir, "embedded.log");
		const { REDIS_URL: _, RATE_LIMIT_PREFIX: __, ...embeddedEnv } = serviceEnv;
		const embedded = await start("bin/server.ts", embeddedEnv, embeddedLog);
		const servers: Servers = { service, embedded, ceiling, naive };
		for (const scenario of all) {
			const answering = Object.values(serversOf(servers, scenario)).filter((server) => server !== null);
			await sameAnswers(answering, scenario);
		}
		for (const server of [ceiling, naive, service, embedded]) await warmUp(server, all);
		const rows = await measureRows(faxes, servers, all);
		const afterLoad = await rssMiB(service.child.pid);
		await Promise.all([stop(service), stop(ceiling), stop(naive), stop(embedded)]);
		rmSync(logFile, { force: true });
		rmSync(embeddedLog, { force: true });
		const defaultList = all[0] as Scenario;
		const logging = measureLogging ? await benchLogging(serviceEnv, logFile, defaultList) : null;
		return {
			faxes,
			rows,
			rssMiB: { started, afterLoad },
			logging,
			load: `${loadBefore} → ${await loadAverage()}`,
		};
	} finally {
		redis.disconnect();
		rmSync(databasePath, { force: true });
	}
}

const perSecond = (result: LoadResult | null) => (result === null ? "—" : result.perSecond.toFixed(0));
const cpu = (result: Measured | null) => (result === null ? "—" : result.cpuMicrosPerAnswer.toFixed(0));
const ms = (value: number) => value.toFixed(2);
const meets = (value: number, target: number) => `${value.toFixed(2)} ${value >= target ? "✓" : "✗"}`;

/** The share of the ceiling each scenario must reach (the Redis shape against the yardstick with the same Redis round trip). */
const TARGETS: Record<string, number> = {
	list: 0.6,
	poll: 0.8,
	from: 0.6,
	single: 0.6,
	invalid: 0.6,
	limited: 0.6,
};
/** The Redis shape against the embedded shape, same database, same bytes (issue 19). */
const REDIS_TARGETS: Record<string, number> = { list: 0.6, poll: 0.7 };
/** A compressed poll against the uncompressed poll, both in the Redis shape. */
const COMPRESSED_TARGET = 0.8;
/** The Redis shape's p99 at BENCH_CONNECTIONS connections. */
const P99_TARGETS_MS: Record<string, number> = { list: 5, poll: 10 };
const LARGE_TARGET = 0.9;
const LOGGING_TARGET = 0.1;

function unexpected(row: Row): string[] {
	const wanted = row.scenario.status;
	return (["ceiling", "naive", "service", "embedded"] as const).flatMap((server) => {
		const result = row[server];
		if (result === null) return [];
		const others = Object.keys(result.statuses).filter((status) => Number(status) !== wanted);
		return others.length === 0 ? [] : [`${row.scenario.name}: ${server} answered ${others.join(", ")}`];
	});
}

/** The target cell of a ratio, or a dash where the row has none. */
function ratio(value: number | null, target: number | undefined): string {
	if (value === null) return "—";
	return target === undefined ? value.toFixed(2) : `${meets(value, target)} (${target})`;
}

function sizeTable(size: SizeResult): string[] {
	const lines = [
		`\n${size.faxes.toLocaleString("en")} faxes (load average ${size.load})\n`,
		"| scenario | bytes | requests/s: ceiling | naive | Redis shape | embedded | Redis / ceiling (target) | Redis / embedded (target) | Redis p50 / p99 ms (target) | CPU µs per answer: ceiling / naive / Redis / embedded |",
		"| - | - | - | - | - | - | - | - | - | - |",
	];
	const poll = size.rows.find((row) => row.scenario.id === "poll");
	for (const row of size.rows) {
		const { id } = row.scenario;
		const compressed = row.scenario.encoding !== undefined;
		const ofCeiling = row.ceiling ? row.service.perSecond / row.ceiling.perSecond : null;
		const ofEmbedded = row.embedded ? row.service.perSecond / row.embedded.perSecond : null;
		const p99Target = P99_TARGETS_MS[id];
		const p99 = p99Target === undefined ? "" : ` ${row.service.p99ms < p99Target ? "✓" : "✗"} (${p99Target})`;
		const ofUncompressed = compressed && poll ? row.service.perSecond / poll.service.perSecond : null;
		const second = compressed
			? `${ratio(ofUncompressed, COMPRESSED_TARGET)} of the uncompressed poll`
			: ratio(ofEmbedded, REDIS_TARGETS[id]);
		lines.push(
			`| ${row.scenario.name} | ${row.bytes} | ${perSecond(row.ceiling)} | ${perSecond(row.naive)} | ${perSecond(row.service)} | ${perSecond(row.embedded)} | ${ratio(ofCeiling, compressed ? undefined : TARGETS[id])} | ${second} | ${ms(row.service.p50ms)} / ${ms(row.service.p99ms)}${p99} | ${cpu(row.ceiling)} / ${cpu(row.naive)} / ${cpu(row.service)} / ${cpu(row.embedded)} |`,
		);
	}
	lines.push(
		`\nRSS of the service (Redis): ${size.rssMiB.started.toFixed(0)} MiB after start, ${size.rssMiB.afterLoad.toFixed(0)} MiB after the load`,
	);
	for (const problem of size.rows.flatMap(unexpected)) lines.push(`UNEXPECTED STATUS: ${problem}`);
	if (size.logging) lines.push(loggingReport(size.logging));
	return lines;
}

const total = (results: Measured[]) => results.reduce((sum, result) => sum + result.perSecond, 0);
const cpuOf = (results: Measured[]) =>
	results.reduce((sum, result) => sum + result.cpuMicrosPerAnswer * result.requests, 0) /
	results.reduce((sum, result) => sum + result.requests, 0);

function loggingReport(cost: LoggingCost): string {
	const share = total(cost.info) / total(cost.silent);
	const [info, silent] = [cpuOf(cost.info), cpuOf(cost.silent)];
	const rounds = cost.info.map((result, i) =>
		(result.perSecond / (cost.silent[i] as Measured).perSecond).toFixed(2),
	);
	return [
		`\nAccess log (default list, ${LOGGING_ROUNDS} alternating rounds, ${cost.lines} lines written to a file):`,
		`LOG_LEVEL=info serves ${share.toFixed(2)}× the requests of LOG_LEVEL=silent (rounds ${rounds.join(", ")}): a cost of ${((1 - share) * 100).toFixed(1)} % ${1 - share < LOGGING_TARGET ? "✓" : "✗"} (target under ${LOGGING_TARGET * 100} %);`,
		`server CPU per answer ${info.toFixed(0)} µs against ${silent.toFixed(0)} µs: the log takes ${((1 - silent / info) * 100).toFixed(1)} % of the CPU of an answer`,
	].join("\n");
}

/** The tables of `bun run bench`, in Markdown. */
export function report(sizes: SizeResult[]): string {
	const lines = sizes.flatMap(sizeTable);
	const [small, large] = [sizes[0], sizes[sizes.length - 1]];
	if (small && large && small !== large) {
		lines.push(
			`\n${large.faxes.toLocaleString("en")} against ${small.faxes.toLocaleString("en")} faxes (target ${LARGE_TARGET})\n`,
			"| scenario | Redis shape requests/s | Redis / ceiling | Redis / embedded |",
			"| - | - | - | - |",
		);
		const share = (result: Measured | null, row: Row) =>
			result ? row.service.perSecond / result.perSecond : null;
		const cell = (a: number | null, b: number | null) =>
			a === null || b === null ? "—" : meets(a / b, LARGE_TARGET);
		small.rows.forEach((row, i) => {
			const other = large.rows[i];
			if (!other) return;
			lines.push(
				`| ${row.scenario.name} | ${meets(other.service.perSecond / row.service.perSecond, LARGE_TARGET)} | ${cell(share(other.ceiling, other), share(row.ceiling, row))} | ${cell(share(other.embedded, other), share(row.embedded, row))} |`,
			);
		});
	}
	return lines.join("\n");
}

/** Runs every size against one redis-server; temporary files live in `dir`. */
export async function benchHttp(dir: string): Promise<void> {
	console.log(
		`load: ${CONNECTIONS} connections, ${SECONDS} s per server and scenario, the load generator on the same machine (${navigator.hardwareConcurrency} cores)`,
	);
	const redis = await startRedisServer();
	try {
		const sizes: SizeResult[] = [];
		for (const faxes of SIZES) sizes.push(await benchSize(dir, faxes, redis.url, sizes.length === 0));
		console.log(report(sizes));
	} finally {
		await Promise.all(
			children.map((child) => {
				child.kill();
				return child.exited;
			}),
		);
		await redis.close();
	}
}
