/**
 * `bun run bench:flood`: the in-process rate limit under floods of distinct
 * client keys, the shape of an attack from many IPv6 /64s (and of every
 * request while Redis is down).
 *
 * 1. The limiter itself: five floods of BENCH_FLOOD_KEYS distinct /64 keys,
 *    hits per second of each; the fifth runs in slices alternating with the
 *    first flood of a fresh limiter (the yardstick); and a normal client's hit
 *    before and after them.
 * 2. Through HTTP, the server behind a trusted proxy counting in memory: a
 *    normal client's requests per second and p99, four floods of
 *    BENCH_FLOOD_KEYS requests each from a new /64 every time, then the
 *    normal client again; each normal run beside the same run on a fresh
 *    server (the yardstick). The bound: after the four floods the normal
 *    client keeps at least 0.9× the throughput it had before them.
 * 3. With Redis: clients past their limit flood the server counting in
 *    Redis; the Redis commands (the count script's EVALSHA/EVAL calls, from
 *    INFO commandstats) per refused request. A key over its limit is refused
 *    from memory until its window ends (lib/rate-limit/refused-keys.ts), so
 *    the bound is one command per key and window: 0.00 per refused request.
 * 0. First, Bun's Map: the first key of a fresh map and of one after 100,000
 *    deletes, the cost the limiter's own order of windows avoids.
 * Options (environment): BENCH_FLOOD_KEYS (1000000), BENCH_SECONDS (3, each
 * normal-client run), BENCH_CONNECTIONS (32).
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { MemoryWindowLimiter } from "../lib/rate-limit/index.ts";
import { startRedisServer } from "../testkit/redis-server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, runLoad } from "./load.ts";

const KEYS = Number(process.env.BENCH_FLOOD_KEYS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LIMITER_FLOODS = 5;
const HTTP_FLOODS = 4;
const BOUND = 0.9;
const ROUNDS = 5;
const NORMAL_CLIENT = "203.0.113.7";

/** The n-th address of a flood: a /64 of its own, as an attacker holding a /32 can send. */
function floodAddress(flood: number, n: number): string {
	return `2001:db8:${(flood * 0x100 + (n >>> 16)).toString(16)}:${(n & 0xffff).toString(16)}::1`;
}

/** The rate-limit key of floodAddress(flood, n), as lib/net writes it. */
function floodKey(flood: number, n: number): string {
	return `2001:db8:${(flood * 0x100 + (n >>> 16)).toString(16)}:${(n & 0xffff).toString(16)}::/64`;
}

function verdict(ratio: number): string {
	return `${ratio.toFixed(2)}× (bound ${BOUND}×: ${ratio >= BOUND ? "within" : "BROKEN"})`;
}

function normalHitMicroseconds(limiter: MemoryWindowLimiter): number {
	const hits = 200_000;
	const start = performance.now();
	for (let i = 0; i < hits; i++) limiter.hit(NORMAL_CLIENT);
	return ((performance.now() - start) / hits) * 1000;
}

/** Milliseconds `limiter` takes for the hits of `keys` from `from` up to `to`. */
function timeHits(limiter: MemoryWindowLimiter, keys: string[], from: number, to: number): number {
	const start = performance.now();
	for (let i = from; i < to; i++) limiter.hit(keys[i] as string);
	return performance.now() - start;
}

function benchLimiter(): void {
	const limiter = new MemoryWindowLimiter({ limit: 1_000_000_000, windowSeconds: 60 });
	console.log(`limiter: ${LIMITER_FLOODS} floods of ${KEYS.toLocaleString("en")} distinct /64 keys`);
	normalHitMicroseconds(limiter);
	const before = normalHitMicroseconds(limiter);
	let first = 0;
	for (let flood = 0; flood < LIMITER_FLOODS - 1; flood++) {
		const keys = Array.from({ length: KEYS }, (_, n) => floodKey(flood, n));
		const rate = KEYS / (timeHits(limiter, keys, 0, KEYS) / 1000);
		if (flood === 0) first = rate;
		console.log(
			`  flood ${flood + 1}: ${rate.toFixed(0).padStart(9)} hits/s  ${(rate / first).toFixed(2)}× the first  ${limiter.size.toLocaleString("en")} keys held`,
		);
	}
	// The last flood runs in slices alternating with the first flood of a fresh
	// limiter (the yardstick), so both see the same load from other jobs.
	const fresh = new MemoryWindowLimiter({ limit: 1_000_000_000, windowSeconds: 60 });
	const last = Array.from({ length: KEYS }, (_, n) => floodKey(LIMITER_FLOODS - 1, n));
	const yardstick = Array.from({ length: KEYS }, (_, n) => floodKey(LIMITER_FLOODS, n));
	const slice = Math.ceil(KEYS / 20);
	let flooded = 0;
	let yard = 0;
	for (let from = 0; from < KEYS; from += slice) {
		const to = Math.min(KEYS, from + slice);
		flooded += timeHits(limiter, last, from, to);
		yard += timeHits(fresh, yardstick, from, to);
	}
	console.log(
		`  flood ${LIMITER_FLOODS}: ${(KEYS / (flooded / 1000)).toFixed(0).padStart(9)} hits/s, beside a fresh limiter's first flood at ${(KEYS / (yard / 1000)).toFixed(0)} hits/s`,
	);
	const after = normalHitMicroseconds(limiter);
	console.log(
		`  a normal client's hit: ${before.toFixed(3)} µs before the floods, ${after.toFixed(3)} µs after`,
	);
	console.log(
		`  after ${LIMITER_FLOODS - 1} floods against a first flood beside it: ${verdict(yard / flooded)}`,
	);
}

/** Microseconds to the first key of a map. */
function firstKeyMicroseconds(map: Map<string, number>): number {
	const start = performance.now();
	for (let i = 0; i < 100; i++) map.keys().next();
	return ((performance.now() - start) / 100) * 1000;
}

/**
 * The upstream cost lib/rate-limit/memory-window.ts works around (docs/decisions.md,
 * "Workarounds"): Bun's Map iterators walk every slot deleted since the table was
 * rebuilt. When the two figures come close, the windows' own order can go.
 */
function benchMapIterator(): void {
	const fresh = new Map<string, number>();
	for (let i = 0; i < 100_000; i++) fresh.set(`k${i}`, i);
	const used = new Map<string, number>();
	for (let i = 0; i < 200_000; i++) used.set(`k${i}`, i);
	for (let i = 0; i < 100_000; i++) used.delete(`k${i}`);
	console.log(
		`Bun Map, first key of 100,000: ${firstKeyMicroseconds(fresh).toFixed(2)} µs fresh, ${firstKeyMicroseconds(used).toFixed(2)} µs after 100,000 deletes`,
	);
}

function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function line(label: string, result: LoadResult): string {
	return `  ${label}: ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50ms.toFixed(2)} ms  p99 ${result.p99ms.toFixed(2)} ms`;
}

function startServer(dir: string, env: Record<string, string> = {}) {
	return startServerProcess({
		DATABASE_PATH: join(dir, "flood.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		LOG_LEVEL: "silent",
		TRUST_PROXY: "127.0.0.1",
		RATE_LIMIT_PER_MINUTE: "1000000000",
		...env,
	});
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** HTTP_FLOODS floods of KEYS requests, each from its own addresses, against `server`. */
async function floodHttp(server: { child: { pid: number } }, port: number, path: string): Promise<void> {
	let firstFlood = 0;
	for (let flood = 0; flood < HTTP_FLOODS; flood++) {
		const result = await runLoad(
			{ port, paths: [path], clientOf: (n) => floodAddress(flood, n), maxRequests: KEYS },
			3600,
			CONNECTIONS,
		);
		if (flood === 0) firstFlood = result.perSecond;
		console.log(
			`${line(`flood ${flood + 1}`, result)}  ${(result.perSecond / firstFlood).toFixed(2)}× the first  RSS ${rssMiB(server.child.pid).toFixed(0)} MiB`,
		);
	}
}

async function benchHttp(): Promise<void> {
	const dir = join(tmpdir(), `testfax-bench-flood-${process.pid}`);
	// Two servers of the same code: one takes the floods, the other (the
	// yardstick) never sees one. Measuring the normal client on both in turn
	// cancels the load other jobs put on the machine meanwhile.
	const flooded = await startServer(join(dir, "flooded"));
	const fresh = await startServer(join(dir, "fresh"));
	try {
		const port = (server: typeof flooded) => Number(new URL(server.url).port);
		const path = "/api/faxes/fax_none";
		const normal = (server: typeof flooded) =>
			runLoad({ port: port(server), paths: [path], clients: [NORMAL_CLIENT] }, SECONDS, CONNECTIONS);
		const rounds = async (label: string) => {
			const ratios: number[] = [];
			const p99s: [number[], number[]] = [[], []];
			for (let round = 0; round < ROUNDS; round++) {
				const a = await normal(flooded);
				const b = await normal(fresh);
				ratios.push(a.perSecond / b.perSecond);
				p99s[0].push(a.p99ms);
				p99s[1].push(b.p99ms);
				console.log(`${line(`${label}, flooded server`, a)}`);
				console.log(`${line(`${label}, fresh server  `, b)}`);
			}
			console.log(
				`  ${label}: normal client's p99, median of ${ROUNDS}: ${median(p99s[0]).toFixed(2)} ms on the flooded server, ${median(p99s[1]).toFixed(2)} ms on the fresh one`,
			);
			return median(ratios);
		};
		console.log(
			`HTTP: a normal client (${CONNECTIONS} connections, ${SECONDS} s) on the flooded server and on a fresh one in turn, ${HTTP_FLOODS} floods of ${KEYS.toLocaleString("en")} requests from distinct /64s, the normal client again`,
		);
		await normal(flooded);
		await normal(fresh);
		const before = await rounds("before");
		await floodHttp(flooded, port(flooded), path);
		const after = await rounds("after");
		console.log(
			`  flooded/fresh throughput, median of ${ROUNDS} rounds: before the floods ${before.toFixed(2)}`,
		);
		console.log(
			`  normal client's throughput after ${HTTP_FLOODS} floods against before, each against the fresh server: ${verdict(after / before)}`,
		);
		console.log(
			`  RSS: flooded ${rssMiB(flooded.child.pid).toFixed(0)} MiB, fresh ${rssMiB(fresh.child.pid).toFixed(0)} MiB`,
		);
	} finally {
		for (const server of [flooded, fresh]) {
			server.child.kill("SIGTERM");
			await server.child.exited;
		}
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The count script's calls Redis has run since it started. */
async function scriptCalls(redis: Redis): Promise<number> {
	const stats = await redis.info("commandstats");
	return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
		(sum, [, calls]) => sum + Number(calls),
		0,
	);
}

const REDIS_LIMIT = 10;
const REDIS_CLIENTS = 100;
const REDIS_FLOOD = 200_000;

async function benchRedisRefusals(): Promise<void> {
	const dir = join(tmpdir(), `testfax-bench-flood-redis-${process.pid}`);
	const redisServer = await startRedisServer();
	const redis = new Redis(redisServer.url);
	const server = await startServer(dir, {
		REDIS_URL: redisServer.url,
		RATE_LIMIT_PER_MINUTE: String(REDIS_LIMIT),
	});
	try {
		const before = await scriptCalls(redis);
		const result = await runLoad(
			{
				port: Number(new URL(server.url).port),
				paths: ["/api/faxes/fax_none"],
				clientOf: (n) => `198.51.100.${n % REDIS_CLIENTS}`,
				maxRequests: REDIS_FLOOD,
			},
			3600,
			CONNECTIONS,
		);
		const commands = (await scriptCalls(redis)) - before;
		const refused = result.statuses[429] ?? 0;
		const counted = REDIS_CLIENTS * REDIS_LIMIT;
		console.log(
			`Redis: ${REDIS_FLOOD.toLocaleString("en")} requests from ${REDIS_CLIENTS} clients, limit ${REDIS_LIMIT}: ${refused.toLocaleString("en")} refused, ${result.perSecond.toFixed(0)} req/s`,
		);
		console.log(
			`  Redis commands: ${commands.toLocaleString("en")}, ${((commands - counted) / refused).toFixed(4)} per refused request (the ${counted.toLocaleString("en")} counted ones aside; bound: one per key and window)`,
		);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
		redis.disconnect();
		await redisServer.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

benchMapIterator();
benchLimiter();
await benchHttp();
await benchRedisRefusals();
