import { afterAll, expect } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sample } from "./prometheus.ts";
import {
	type RedisProcess,
	RedisTopology,
	type SentinelGroup,
	sentinelMaster,
	subscriberCount,
	until,
} from "./redis-topology.ts";
import { makeTempDir } from "./server.ts";
import { type ServerProcessOptions, startServerProcess } from "./server-process.ts";

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

/**
 * The reason the server logged for counting in memory, once the line is in
 * `logFile` (written when the first request found Redis unusable); null if
 * none came within 5 s.
 */
async function loggedFallbackReason(logFile: string): Promise<string | null> {
	const deadline = Date.now() + 5000;
	do {
		const text = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
		for (const line of text.split("\n")) {
			if (!line.includes("counting in process memory")) continue;
			return String((JSON.parse(line) as { reason?: unknown }).reason);
		}
		await Bun.sleep(50);
	} while (Date.now() < deadline);
	return null;
}

/**
 * What a server whose Redis refuses it shows: counting in memory before any
 * request, exactly 60 answers and a 429 for the client `address`, and one
 * logged line; returns that line's reason, for the caller to check.
 */
export async function refusedFromTheStart(
	server: { url: string; adminUrl: string },
	logFile: string,
	mode: string,
	address: string,
): Promise<string | null> {
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "memory-fallback",
		mode,
		countedInMemory: 0,
		fallbacks: 0,
	});
	expect(await statusesFrom(server.url, address, 61)).toEqual(SIXTY_THEN_429);
	return loggedFallbackReason(logFile);
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
		async startServer(redisEnv: Record<string, string>, options: ServerProcessOptions = {}) {
			const server = await startServerProcess(
				{
					DATABASE_PATH: join(dir, "faxes.sqlite"),
					STORAGE_DIR: join(dir, "storage"),
					PURGE_INTERVAL: "0",
					TRUST_PROXY: "127.0.0.1",
					...redisEnv,
				},
				options,
			);
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
		summary:
			`${Math.round(failoverMs)} ms from the kill until counted in Redis again; ` +
			`${answersDuring} answers meanwhile (${tally.answers} in the run, ${tally.failed.length} failed); ` +
			`${after.countedInMemory - before.countedInMemory} counted in memory, ${after.fallbacks - before.fallbacks} switches to memory`,
	};
}

/** The client whose requests make the server try Redis again while a test waits for it. */
const PROBE_ADDRESS = "192.0.2.1";

/**
 * Once the count is back in Redis, a new client `address` gets exactly 60
 * answers and a 429, `stored()` finds 61 in Redis, and none of them was
 * counted in memory.
 */
export async function expectCountedInRedis(
	server: ServerProcess,
	address: string,
	stored: () => Promise<string | null>,
): Promise<void> {
	// Only a request tries Redis again, so one goes before each look.
	await until("the count back in Redis", async () => {
		await statusesFrom(server.url, PROBE_ADDRESS, 1);
		return (await rateLimitReport(server.adminUrl)).backend === "redis";
	});
	const { countedInMemory } = await rateLimitReport(server.adminUrl);
	expect(await statusesFrom(server.url, address, 61)).toEqual(SIXTY_THEN_429);
	expect(await stored()).toBe("61");
	const end = await rateLimitReport(server.adminUrl);
	expect([end.backend, end.countedInMemory]).toEqual(["redis", countedInMemory]);
}

/**
 * Whether `sentinels` (all of the group's unless named) name the replica as
 * the master. Each announces the failover (`+switch-master`) as it takes it
 * in, and a client's failover detector reconnects on hearing it, even when
 * the client already found the new master from a quicker sentinel.
 */
export async function nameTheReplica(
	group: SentinelGroup,
	sentinels: RedisProcess[] = group.sentinels,
): Promise<boolean> {
	const views = await Promise.all(
		sentinels.map((sentinel) => sentinelMaster(sentinel.port, group.masterName)),
	);
	return views.every((view) => view.port === String(group.replica.port));
}

/** Until each sentinel on `ports` has `count` subscribed connections (the failover detector's). */
export function untilSubscribers(ports: number[], count: number): Promise<void> {
	return until(`${count} subscriber(s) on each sentinel`, async () =>
		(await Promise.all(ports.map(subscriberCount))).every((found) => found === count),
	);
}

/**
 * The master SIGKILLed while the first sentinel, the one a client asks first,
 * is paused: the client, reconnecting, waits for that sentinel's answer while
 * the other two fail the master over and announce it (`+switch-master`), which
 * closes the client's failover detector. Then the first sentinel answers.
 * The client must have subscribed to every sentinel before.
 */
export async function failOverWhileFirstSentinelHangs(group: SentinelGroup): Promise<void> {
	const [first, ...others] = group.sentinels;
	if (first === undefined) throw new Error("a sentinel group without sentinels");
	const otherPorts = others.map((sentinel) => sentinel.port);
	first.pause();
	await group.master.kill("SIGKILL");
	await until("the other sentinels name the replica as the master", () => nameTheReplica(group, others));
	await untilSubscribers(otherPorts, 0);
	first.resume();
}
