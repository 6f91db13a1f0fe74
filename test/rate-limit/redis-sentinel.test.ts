import { expect, test } from "bun:test";
import {
	clientAddresses,
	expectCountedInRedis,
	measureFailover,
	rateLimitReport,
	startLoad,
	useRedisTopology,
} from "../../testkit/redis-failover.ts";
import { keyCount, sentinelMaster, storedValue, until } from "../../testkit/redis-topology.ts";

const { topology, startServer } = useRedisTopology();
const PREFIX = "testfax:rl:";

test("Sentinel with a master, a replica and 3 sentinels: the master killed under load, every answer a 200 or a 429, then counted on the new master", async () => {
	const group = await topology.sentinelGroup("counts");
	const server = await startServer({
		REDIS_SENTINELS: group.sentinels.map((sentinel) => sentinel.address).join(","),
		REDIS_SENTINEL_MASTER: group.masterName,
	});
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "redis",
		mode: "sentinel",
		countedInMemory: 0,
		fallbacks: 0,
	});

	const load = startLoad(server.url, clientAddresses(5000));
	await until("counts copied to the replica", async () => (await keyCount(group.replica.port)) > 100);
	const onReplica = (address: string) => () => storedValue(group.replica.port, `${PREFIX}${address}`);
	const run = await measureFailover(
		server,
		load,
		() => group.master.kill("SIGKILL"),
		"172.16.0.1",
		async () => (await onReplica("172.16.0.1")()) !== null,
	);
	expect(run.tally.failed).toEqual([]);
	expect(run.otherStatuses).toEqual([]);
	const promoted = await sentinelMaster(group.sentinels[0]?.port ?? 0, group.masterName);
	expect(promoted.port).toBe(String(group.replica.port));

	await expectCountedInRedis(server, "172.16.0.2", onReplica("172.16.0.2"), run.countedInMemory);
	console.log(`sentinel failover: ${run.summary}`);
}, 120_000);
