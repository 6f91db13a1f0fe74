import { afterAll, expect } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sample } from "./prometheus.ts";
import { RedisTopology, until } from "./redis-topology.ts";
import { makeTempDir } from "./server.ts";
import { startServerProcess } from "./server-process.ts";

/** Every answer of a load run by status; `failed` holds requests that got no answer at all. */
export interface LoadTally {
	answers: number;
	statuses: Record<number, number>;
	failed: string[];
}

export interface Load {
	/** The tally so far. */
	readonly tally: LoadTally;
	/** Stops the loops and resolves once every request in flight is answered. */
	stop(): Promise<LoadTally>;
}

/** An address of its own for each of `count` clients, behind a trusted proxy. */
export function clientAddresses(count: number, network = 10): string[] {
	return Array.from(
		{ length: count },
		(_, index) => `${network}.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
	);
}

/**
 * `workers` loops asking for the list as fast as the server answers, each
 * request from the next of `addresses` (sent as X-Forwarded-For), so the
 * counts spread over many keys and none of them runs out during a test.
 */
export function startLoad(url: string, addresses: string[], workers = 16): Load {
	const tally: LoadTally = { answers: 0, statuses: {}, failed: [] };
	let stopped = false;
	let next = 0;
	const loop = async () => {
		while (!stopped) {
			const address = addresses[next++ % addresses.length] ?? "";
			try {
				const response = await fetch(`${url}/api/faxes`, { headers: { "x-forwarded-for": address } });
				await response.arrayBuffer();
				tally.answers++;
				tally.statuses[response.status] = (tally.statuses[response.status] ?? 0) + 1;
			} catch (error) {
				tally.failed.push(String(error));
			}
		}
	};
	const loops = Array.from({ length: workers }, loop);
	return {
		tally,
		async stop() {
			stopped = true;
			await Promise.all(loops);
			return tally;
		},
	};
}

/** What the admin listener says of the count: where it is now, its mode, and the counters. */
export async function rateLimitReport(adminUrl: string) {
	const ready = (await (await fetch(`${adminUrl}/readyz`)).json()) as {
		rate_limit: string;
		redis_mode: string;
	};
	const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
	return {
		backend: ready.rate_limit,
		mode: ready.redis_mode,
		countedInMemory: sample(metrics, "testfax_rate_limit_counted_in_memory_total") ?? Number.NaN,
		fallbacks: sample(metrics, "testfax_rate_limit_fallbacks_total") ?? Number.NaN,
	};
}

/** The statuses of `count` requests in a row from one client address. */
export async function statusesFrom(url: string, address: string, count: number): Promise<number[]> {
	const statuses: number[] = [];
	for (let index = 0; index < count; index++) {
		const response = await fetch(`${url}/api/faxes`, { headers: { "x-forwarded-for": address } });
		await response.arrayBuffer();
		statuses.push(response.status);
	}
	return statuses;
}

/** 60 answers of 200, then a 429: a fresh client's first minute under the default limit. */
export const SIXTY_THEN_429 = [...Array.from({ length: 60 }, () => 200), 429];

/** A topology and a temp dir for one test file, with the servers started on them; all stopped after the file. */
export function useRedisTopology() {
	const topology = new RedisTopology();
	const dir = makeTempDir();
	const children: Bun.Subprocess[] = [];
	afterAll(async () => {
		for (const child of children) child.kill("SIGKILL");
		await topology.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return {
		topology,
		/** A server process counting in the Redis that `redisEnv` names, its clients behind a trusted proxy. */
		async startServer(redisEnv: Record<string, string>) {
			const server = await startServerProcess({
				DATABASE_PATH: join(dir, "faxes.sqlite"),
				STORAGE_DIR: join(dir, "storage"),
				PURGE_INTERVAL: "0",
				TRUST_PROXY: "127.0.0.1",
				...redisEnv,
			});
			children.push(server.child);
			return server;
		},
	};
}

type ServerProcess = Awaited<ReturnType<ReturnType<typeof useRedisTopology>["startServer"]>>;

/**
 * A failover under load, measured: `kill` runs, then a request from `watched`
 * every 100 ms until `counted()` finds its count in Redis again. Stops the load.
 */
export async function measureFailover(
	server: ServerProcess,
	load: Load,
	kill: () => Promise<void>,
	watched: string,
	counted: () => Promise<boolean>,
) {
	const before = await rateLimitReport(server.adminUrl);
	const answersBefore = load.tally.answers;
	const killedAt = performance.now();
	await kill();
	await until(
		`${watched} counted in Redis again`,
		async () => {
			await statusesFrom(server.url, watched, 1);
			return counted();
		},
		60_000,
	);
	const failoverMs = performance.now() - killedAt;
	const answersDuring = load.tally.answers - answersBefore;
	const tally = await load.stop();
	const after = await rateLimitReport(server.adminUrl);
	return {
		tally,
		/** Statuses other than 200 and 429, which no answer may have. */
		otherStatuses: Object.keys(tally.statuses).filter((status) => status !== "200" && status !== "429"),
		countedInMemory: after.countedInMemory,
		summary:
			`${Math.round(failoverMs)} ms from the kill until counted in Redis again; ` +
			`${answersDuring} answers meanwhile (${tally.answers} in the run, ${tally.failed.length} failed); ` +
			`${after.countedInMemory - before.countedInMemory} counted in memory, ${after.fallbacks - before.fallbacks} switches to memory`,
	};
}

/**
 * Once the count is back in Redis, a new client `address` gets exactly 60
 * answers and a 429, `stored()` finds 61 in Redis, and nothing more was
 * counted in memory than `countedInMemory`.
 */
export async function expectCountedInRedis(
	server: ServerProcess,
	address: string,
	stored: () => Promise<string | null>,
	countedInMemory: number,
): Promise<void> {
	await until(
		"the count back in Redis",
		async () => (await rateLimitReport(server.adminUrl)).backend === "redis",
	);
	expect(await statusesFrom(server.url, address, 61)).toEqual(SIXTY_THEN_429);
	expect(await stored()).toBe("61");
	const end = await rateLimitReport(server.adminUrl);
	expect([end.backend, end.countedInMemory]).toEqual(["redis", countedInMemory]);
}
