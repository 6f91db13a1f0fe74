import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
	clientAddresses,
	rateLimitReport,
	SIXTY_THEN_429,
	startLoad,
	statusesFrom,
} from "../../testkit/redis-failover.ts";
import { keyCount, RedisTopology, sentinelMaster, storedValue, until } from "../../testkit/redis-topology.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const topology = new RedisTopology();
const dir = makeTempDir();
let stopServer = () => {};
afterAll(async () => {
	stopServer();
	await topology.close();
	rmSync(dir, { recursive: true, force: true });
});

const PREFIX = "testfax:rl:";

test("Sentinel with a master, a replica and 3 sentinels: the master killed under load, every answer a 200 or a 429, then counted on the new master", async () => {
	const group = await topology.sentinelGroup("counts");
	const server = await startServerProcess({
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		PURGE_INTERVAL: "0",
		TRUST_PROXY: "127.0.0.1",
		REDIS_SENTINELS: group.sentinels.map((sentinel) => sentinel.address).join(","),
		REDIS_SENTINEL_MASTER: group.masterName,
	});
	stopServer = () => server.child.kill("SIGKILL");
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "redis",
		mode: "sentinel",
		countedInMemory: 0,
		fallbacks: 0,
	});

	const load = startLoad(server.url, clientAddresses(5000));
	await until("counts copied to the replica", async () => (await keyCount(group.replica.port)) > 100);
	const before = await rateLimitReport(server.adminUrl);
	const answersBefore = load.tally.answers;
	const killedAt = performance.now();
	await group.master.kill("SIGKILL");
	await until(
		"a client counted on the promoted replica",
		async () => {
			await statusesFrom(server.url, "172.16.0.1", 1);
			return (await storedValue(group.replica.port, `${PREFIX}172.16.0.1`)) !== null;
		},
		60_000,
	);
	const failoverMs = performance.now() - killedAt;
	const answersDuring = load.tally.answers - answersBefore;
	const tally = await load.stop();
	const after = await rateLimitReport(server.adminUrl);
	expect(tally.failed).toEqual([]);
	expect(Object.keys(tally.statuses).filter((status) => status !== "200" && status !== "429")).toEqual([]);
	expect((await sentinelMaster(group.sentinels[0]?.port ?? 0, group.masterName)).port).toBe(
		String(group.replica.port),
	);

	await until(
		"the count back in Redis",
		async () => (await rateLimitReport(server.adminUrl)).backend === "redis",
	);
	expect(await statusesFrom(server.url, "172.16.0.2", 61)).toEqual(SIXTY_THEN_429);
	expect(await storedValue(group.replica.port, `${PREFIX}172.16.0.2`)).toBe("61");
	const end = await rateLimitReport(server.adminUrl);
	expect([end.backend, end.countedInMemory]).toEqual(["redis", after.countedInMemory]);
	console.log(
		`sentinel failover: ${Math.round(failoverMs)} ms from the kill until counted on the promoted replica; ` +
			`${answersDuring} answers meanwhile (${tally.answers} in the run, none failed); ` +
			`${after.countedInMemory - before.countedInMemory} counted in memory, ${after.fallbacks - before.fallbacks} switches to memory`,
	);
}, 120_000);
