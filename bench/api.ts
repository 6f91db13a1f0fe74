/**
 * `bun run bench`: the service against a bare Bun.serve baseline answering the
 * same bytes, on this machine, side by side. Prints requests per second,
 * latency and memory of each, and the service's ratio to the baseline; then
 * `fax import` of 1,000,000 records against raw SQLite inserts (bench/import.ts).
 * Options (environment): BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_FAXES (200000).
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../lib/db/index.ts";
import { importFaxes } from "../lib/import/index.ts";
import { startRedisServer } from "../testkit/redis-server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { benchImport, formatImportBench } from "./import.ts";
import { type LoadResult, runLoad } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const FAXES = Number(process.env.BENCH_FAXES ?? 200_000);
const dir = join(tmpdir(), `testfax-bench-${process.pid}`);

const SENDERS = ["+1 555 123 4567", "+49 30 12345678", "ACME 42", "john.doe@example.co.uk", null];

function records(count: number, spreadSeconds: number) {
	const now = Date.now();
	return Array.from({ length: count }, (_, i) => ({
		source: i % 3 === 0 ? "email" : "phone",
		sender: SENDERS[i % SENDERS.length] === "ACME 42" ? `ACME ${i}` : (SENDERS[i % SENDERS.length] ?? null),
		received_at: new Date(now - Math.floor((i / count) * spreadSeconds * 1000)).toISOString(),
		page_count: i % 17 === 0 ? null : 1 + (i % 5),
		file_size: i % 17 === 0 ? null : 40_000 + i,
	}));
}

const children: Bun.Subprocess[] = [];

async function spawnListening(script: string, env: Record<string, string>) {
	const started = await startServerProcess(env, { script });
	children.push(started.child);
	return started;
}

async function rssMiB(pid: number): Promise<number> {
	const status = await Bun.file(`/proc/${pid}/status`).text();
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function row(name: string, result: LoadResult, baseline: LoadResult): string {
	const ratio = result.perSecond / baseline.perSecond;
	const statuses = Object.entries(result.statuses)
		.map(([status, count]) => `${status}×${count}`)
		.join(" ");
	return `${name.padEnd(34)} ${result.perSecond.toFixed(0).padStart(7)}/s  p50 ${result.p50ms.toFixed(2).padStart(6)} ms  p99 ${result.p99ms.toFixed(2).padStart(6)} ms  ${ratio.toFixed(2)}× baseline  ${statuses}`;
}

async function benchHttp(): Promise<void> {
	const databasePath = join(dir, "bench.sqlite");
	const db = openDatabase(databasePath);
	const started = performance.now();
	const imported = await importFaxes(
		new FaxStore(db),
		records(FAXES, 29 * 86_400),
		Math.floor(Date.now() / 1000),
	);
	if (!imported.ok) throw new Error(imported.errors.join("\n"));
	console.log(
		`database: ${FAXES} faxes over 29 days (${((performance.now() - started) / 1000).toFixed(1)} s to load)`,
	);
	db.close();

	const env = {
		DATABASE_PATH: databasePath,
		SEED_DEMO: "0",
		RATE_LIMIT_PER_MINUTE: "1000000000",
		PURGE_INTERVAL: "0",
	};
	const service = await spawnListening("bin/server.ts", env);
	const sample = await (
		await fetch(`${service.url}/api/faxes`, { headers: { "user-agent": "bench" } })
	).text();
	const slug = (JSON.parse(sample) as { slug: string }[])[0]?.slug ?? "";
	await Bun.write(join(dir, "baseline.json"), sample);
	const baselineServer = await spawnListening("bench/baseline-server.ts", {
		BASELINE_BODY: join(dir, "baseline.json"),
	});

	const since = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 19);
	const scenarios: [string, string[]][] = [
		["GET /api/faxes (default, 20)", ["/api/faxes"]],
		["GET /api/faxes?limit=100&since=-7d", [`/api/faxes?limit=100&since=${since}Z`]],
		["GET /api/faxes?from=<number>", ["/api/faxes?from=%2B15551234567"]],
		["GET /api/faxes?from=Unknown", ["/api/faxes?from=Unknown"]],
		["GET /api/faxes/{slug}", [`/api/faxes/${slug}`]],
		["GET /api/faxes?limit=0 (422)", ["/api/faxes?limit=0"]],
	];
	console.log(`load: ${CONNECTIONS} connections, ${SECONDS} s each, load generator on the same machine\n`);
	const baseline = await runLoad([`${baselineServer.url}/`], SECONDS, CONNECTIONS);
	console.log(row("baseline (bare Bun.serve, same body)", baseline, baseline));
	for (const [name, paths] of scenarios) {
		console.log(
			row(
				name,
				await runLoad(
					paths.map((path) => service.url + path),
					SECONDS,
					CONNECTIONS,
				),
				baseline,
			),
		);
	}
	const serviceRss = await rssMiB(service.child.pid);
	const baselineRss = await rssMiB(baselineServer.child.pid);
	console.log(
		`\nRSS after load: service ${serviceRss.toFixed(0)} MiB, baseline ${baselineRss.toFixed(0)} MiB (${(serviceRss / baselineRss).toFixed(2)}×)`,
	);
	service.child.kill();

	const redis = await startRedisServer();
	try {
		const withRedis = await spawnListening("bin/server.ts", { ...env, REDIS_URL: redis.url });
		console.log(
			row(
				"GET /api/faxes (Redis rate limit)",
				await runLoad([`${withRedis.url}/api/faxes`], SECONDS, CONNECTIONS),
				baseline,
			),
		);
	} finally {
		await redis.close();
	}
}

try {
	await benchHttp();
	console.log(`\n${formatImportBench(await benchImport())}`);
} finally {
	// The servers close their databases as they exit; only then is the directory free to go.
	await Promise.all(
		children.map((child) => {
			child.kill();
			return child.exited;
		}),
	);
	rmSync(dir, { recursive: true, force: true });
}
