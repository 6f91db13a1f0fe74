/**
 * The API under load beside its yardsticks, at each database size:
 * - ceiling: Bun.serve with the service's Redis round trip, answering the body
 *   of each URL computed once (bench/ceiling-server.ts);
 * - naive: Bun.serve with the Redis round trip, one prepared SQLite query and
 *   JSON.stringify per request (bench/naive-server.ts);
 * - the service with the Redis rate limit, and the embedded service (no Redis)
 *   beside a bare Bun.serve answering the same bytes (bench/bare-server.ts).
 * Every server answers the same bytes as the service (checked before loading).
 * Clients come from 10,000 addresses through a trusted X-Forwarded-For; the
 * limit is raised so answers stay 200, and one address is used up for the 429.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { FaxStore, openDatabase } from "../lib/db/index.ts";
import { startRedisServer } from "../testkit/redis-server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, runLoad } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SIZES = (process.env.BENCH_FAXES ?? "100000,1000000").split(",").map(Number);
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
	name: string;
	path: string;
	naive: boolean;
	clients: string[];
}

interface Row {
	scenario: Scenario;
	bytes: number;
	ceiling: LoadResult;
	naive: LoadResult | null;
	service: LoadResult;
}

export interface SizeResult {
	faxes: number;
	rows: Row[];
	embedded: { bare: LoadResult; service: LoadResult };
	rssMiB: { started: number; afterLoad: number };
	load: string;
}

const children: Bun.Subprocess[] = [];

async function start(script: string, env: Record<string, string>): Promise<Server> {
	const started = await startServerProcess(env, { script });
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

async function loadAverage(): Promise<string> {
	return (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
}

async function buildDatabase(path: string, count: number): Promise<void> {
	const db = openDatabase(path);
	const store = new FaxStore(db);
	const now = Math.floor(Date.now() / 1000);
	await store.write((writer) => {
		for (let i = 0; i < count; i++) {
			const sender = SENDERS[i % SENDERS.length] ?? null;
			writer.insert({
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
	const since = `${new Date(Date.now() - 600_000).toISOString().slice(0, 19)}Z`;
	const all = { naive: true, clients: CLIENTS };
	return [
		{ name: "`GET /api/faxes` (default, 20 faxes)", path: "/api/faxes", ...all },
		{ name: "poll: `since` 10 min ago, `limit=100`", path: `/api/faxes?since=${since}&limit=100`, ...all },
		{ name: "`from=<number>&limit=1`", path: "/api/faxes?from=%2B15551234567&limit=1", ...all },
		{ name: "`GET /api/faxes/{slug}`", path: "/api/faxes/fax_bench0", ...all },
		{ name: "422 (`limit=0`)", path: "/api/faxes?limit=0", naive: false, clients: CLIENTS },
		{ name: "429 (window used up)", path: "/api/faxes", naive: false, clients: USED },
	];
}

async function fetchAnswer(server: Server, scenario: Scenario): Promise<[number, string]> {
	const response = await fetch(`http://127.0.0.1:${server.port}${scenario.path}`, {
		headers: { "user-agent": "testfax-bench/1.0", "x-forwarded-for": scenario.clients[0] ?? "" },
	});
	return [response.status, await response.text()];
}

async function sameAnswers(servers: Server[], scenario: Scenario): Promise<[number, string]> {
	const answers = await Promise.all(servers.map((server) => fetchAnswer(server, scenario)));
	const [first] = answers;
	if (first === undefined || answers.some(([status, body]) => status !== first[0] || body !== first[1])) {
		throw new Error(`the servers answer ${scenario.path} differently:\n${JSON.stringify(answers, null, 1)}`);
	}
	return first;
}

const load = (server: Server, scenario: Scenario, seconds = SECONDS) =>
	runLoad({ port: server.port, paths: [scenario.path], clients: scenario.clients }, seconds, CONNECTIONS);

async function warmUp(server: Server, all: Scenario[]): Promise<void> {
	await runLoad({ port: server.port, paths: all.map((s) => s.path), clients: CLIENTS }, 2, CONNECTIONS);
}

export async function benchSize(dir: string, faxes: number, redisUrl: string): Promise<SizeResult> {
	const databasePath = join(dir, `bench-${faxes}.sqlite`);
	const built = performance.now();
	await buildDatabase(databasePath, faxes);
	console.error(`${faxes} faxes built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
	const redis = new Redis(redisUrl);
	const loadBefore = await loadAverage();
	try {
		const common = { ...URLS, SEED_DEMO: "0", PURGE_INTERVAL: "0", RATE_LIMIT_PER_MINUTE: String(LIMIT) };
		const service = await start("bin/server.ts", {
			...common,
			DATABASE_PATH: databasePath,
			REDIS_URL: redisUrl,
			RATE_LIMIT_PREFIX: PREFIXES.service,
			TRUST_PROXY: "127.0.0.1",
		});
		const started = await rssMiB(service.child.pid);
		const all = scenarios();
		const bodies: Record<string, [number, string]> = {};
		for (const prefix of Object.values(PREFIXES)) await redis.set(prefix + USED_UP, LIMIT * 2, "PX", 600_000);
		// The ceiling's 429 comes from its own Redis count, like the service's.
		for (const scenario of all)
			if (scenario.clients !== USED) bodies[scenario.path] = await fetchAnswer(service, scenario);
		const bodiesPath = join(dir, "bodies.json");
		await Bun.write(bodiesPath, JSON.stringify(bodies));
		const redisEnv = { ...common, REDIS_URL: redisUrl };
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
		for (const scenario of all)
			await sameAnswers(scenario.naive ? [service, ceiling, naive] : [service, ceiling], scenario);
		for (const server of [ceiling, naive, service]) await warmUp(server, all);

		const rows: Row[] = [];
		for (const scenario of all) {
			const row: Row = {
				scenario,
				bytes: Buffer.byteLength((await fetchAnswer(service, scenario))[1]),
				ceiling: await load(ceiling, scenario),
				naive: scenario.naive ? await load(naive, scenario) : null,
				service: await load(service, scenario),
			};
			rows.push(row);
			console.error(
				`${faxes}: ${scenario.name}: ${(row.service.perSecond / row.ceiling.perSecond).toFixed(2)}× ceiling`,
			);
		}
		const afterLoad = await rssMiB(service.child.pid);
		await Promise.all([stop(service), stop(ceiling), stop(naive)]);

		const embedded = await start("bin/server.ts", {
			...common,
			DATABASE_PATH: databasePath,
			TRUST_PROXY: "127.0.0.1",
		});
		const defaultList = all[0] as Scenario;
		const [, body] = await fetchAnswer(embedded, defaultList);
		const bodyPath = join(dir, "body.json");
		await Bun.write(bodyPath, body);
		const bare = await start("bench/bare-server.ts", { BODY: bodyPath });
		await warmUp(embedded, [defaultList]);
		await warmUp(bare, [defaultList]);
		const result = {
			bare: await load(bare, defaultList),
			service: await load(embedded, defaultList),
		};
		await Promise.all([stop(embedded), stop(bare)]);
		return {
			faxes,
			rows,
			embedded: result,
			rssMiB: { started, afterLoad },
			load: `${loadBefore} → ${await loadAverage()}`,
		};
	} finally {
		redis.disconnect();
		rmSync(databasePath, { force: true });
	}
}

const perSecond = (result: LoadResult | null) => (result === null ? "—" : result.perSecond.toFixed(0));
const ratio = (a: LoadResult | null, b: LoadResult) =>
	a === null ? "—" : (a.perSecond / b.perSecond).toFixed(2);
const ms = (value: number) => value.toFixed(2);
const statuses = (result: LoadResult) =>
	Object.entries(result.statuses)
		.map(([status, count]) => `${status}×${count}`)
		.join(" ");

/** The tables of `bun run bench`, in Markdown. */
export function report(sizes: SizeResult[]): string {
	const lines: string[] = [];
	for (const size of sizes) {
		lines.push(
			`\n${size.faxes.toLocaleString("en")} faxes (load average ${size.load}); requests/s, ratios to the ceiling of the same run\n`,
			"| scenario | bytes | ceiling | naive | service | naive / ceiling | service / ceiling | service p50 / p99 ms | statuses |",
			"| - | - | - | - | - | - | - | - | - |",
		);
		for (const row of size.rows) {
			lines.push(
				`| ${row.scenario.name} | ${row.bytes} | ${perSecond(row.ceiling)} | ${perSecond(row.naive)} | ${perSecond(row.service)} | ${ratio(row.naive, row.ceiling)} | ${ratio(row.service, row.ceiling)} | ${ms(row.service.p50ms)} / ${ms(row.service.p99ms)} | ${statuses(row.service)} |`,
			);
		}
		const { bare, service } = size.embedded;
		lines.push(
			`| embedded (no Redis): bare Bun.serve ${perSecond(bare)}, service ${perSecond(service)} | | | | | | ${ratio(service, bare)} of bare | ${ms(service.p50ms)} / ${ms(service.p99ms)} | ${statuses(service)} |`,
			`\nRSS of the service (Redis): ${size.rssMiB.started.toFixed(0)} MiB after start, ${size.rssMiB.afterLoad.toFixed(0)} MiB after the load`,
		);
	}
	const [small, large] = [sizes[0], sizes[sizes.length - 1]];
	if (small && large && small !== large) {
		lines.push(
			`\n${large.faxes.toLocaleString("en")} against ${small.faxes.toLocaleString("en")} faxes, service requests/s and service / ceiling\n`,
			"| scenario | requests/s | service / ceiling |",
			"| - | - | - |",
		);
		small.rows.forEach((row, i) => {
			const other = large.rows[i];
			if (!other) return;
			const own = (r: Row) => r.service.perSecond / r.ceiling.perSecond;
			lines.push(
				`| ${row.scenario.name} | ${ratio(other.service, row.service)} | ${(own(other) / own(row)).toFixed(2)} |`,
			);
		});
		lines.push(
			`| embedded default list | ${ratio(large.embedded.service, small.embedded.service)} | ${(large.embedded.service.perSecond / large.embedded.bare.perSecond / (small.embedded.service.perSecond / small.embedded.bare.perSecond)).toFixed(2)} |`,
		);
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
		for (const faxes of SIZES) sizes.push(await benchSize(dir, faxes, redis.url));
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
