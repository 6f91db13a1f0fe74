/**
 * `bun run bench:flood`: the in-process rate limit under floods of distinct
 * client keys, the shape of an attack from many IPv6 /64s (and of every
 * request while Redis is down).
 *
 * 1. The limiter itself: five floods of BENCH_FLOOD_KEYS distinct /64 keys,
 *    hits per second of each against the first, and a normal client's hit
 *    before and after them.
 * 2. Through HTTP, the server behind a trusted proxy counting in memory: a
 *    normal client's requests per second and p99 (the yardstick), four floods
 *    of BENCH_FLOOD_KEYS requests each from a new /64 every time, then the
 *    normal client again. The bound: after the four floods the normal client
 *    keeps at least 0.9× the throughput it had before them.
 * Options (environment): BENCH_FLOOD_KEYS (1000000), BENCH_SECONDS (5, each
 * normal-client run), BENCH_CONNECTIONS (32).
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryWindowLimiter } from "../lib/rate-limit/memory-window.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, runLoad } from "./load.ts";

const KEYS = Number(process.env.BENCH_FLOOD_KEYS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LIMITER_FLOODS = 5;
const HTTP_FLOODS = 4;
const BOUND = 0.9;
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

function benchLimiter(): void {
	const limiter = new MemoryWindowLimiter({ limit: 1_000_000_000, windowSeconds: 60 });
	console.log(`limiter: ${LIMITER_FLOODS} floods of ${KEYS.toLocaleString("en")} distinct /64 keys`);
	const before = normalHitMicroseconds(limiter);
	const rates: number[] = [];
	for (let flood = 0; flood < LIMITER_FLOODS; flood++) {
		const keys = Array.from({ length: KEYS }, (_, n) => floodKey(flood, n));
		const start = performance.now();
		for (const key of keys) limiter.hit(key);
		const rate = KEYS / ((performance.now() - start) / 1000);
		rates.push(rate);
		console.log(
			`  flood ${flood + 1}: ${rate.toFixed(0).padStart(9)} hits/s  ${(rate / (rates[0] ?? rate)).toFixed(2)}× the first  ${limiter.size.toLocaleString("en")} keys held`,
		);
	}
	const after = normalHitMicroseconds(limiter);
	console.log(
		`  a normal client's hit: ${before.toFixed(3)} µs before the floods, ${after.toFixed(3)} µs after`,
	);
	console.log(
		`  flood ${LIMITER_FLOODS} against flood 1: ${verdict((rates[LIMITER_FLOODS - 1] ?? 0) / (rates[0] ?? 1))}`,
	);
}

function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function line(label: string, result: LoadResult): string {
	return `  ${label}: ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50ms.toFixed(2)} ms  p99 ${result.p99ms.toFixed(2)} ms`;
}

async function benchHttp(): Promise<void> {
	const dir = join(tmpdir(), `testfax-bench-flood-${process.pid}`);
	const server = await startServerProcess({
		DATABASE_PATH: join(dir, "flood.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		LOG_LEVEL: "silent",
		TRUST_PROXY: "127.0.0.1",
		RATE_LIMIT_PER_MINUTE: "1000000000",
	});
	try {
		const port = Number(new URL(server.url).port);
		const path = "/api/faxes/fax_none";
		const normal = () => runLoad({ port, paths: [path], clients: [NORMAL_CLIENT] }, SECONDS, CONNECTIONS);
		console.log(
			`HTTP: a normal client (${CONNECTIONS} connections, ${SECONDS} s), ${HTTP_FLOODS} floods of ${KEYS.toLocaleString("en")} requests from distinct /64s, the normal client again`,
		);
		await normal();
		const first = await normal();
		console.log(`${line("normal client, before", first)}  RSS ${rssMiB(server.child.pid).toFixed(0)} MiB`);
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
		const after = await normal();
		console.log(line("normal client, after", after));
		console.log(
			`  normal client's throughput after ${HTTP_FLOODS} floods against before: ${verdict(after.perSecond / first.perSecond)}; p99 ${first.p99ms.toFixed(2)} → ${after.p99ms.toFixed(2)} ms`,
		);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
		rmSync(dir, { recursive: true, force: true });
	}
}

benchLimiter();
await benchHttp();
