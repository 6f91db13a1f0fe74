import { expect, test } from "bun:test";
import {
	clientAddresses,
	expectCountedInRedis,
	measureFailover,
	rateLimitReport,
	startLoad,
	useRedisTopology,
} from "../../testkit/redis-failover.ts";
import { COUNT_ACL, directClient, keyCount, type RedisProcess, until } from "../../testkit/redis-topology.ts";

const { topology, startServer } = useRedisTopology();
const PREFIX = "testfax:rl:";

/** The port of the master serving `key`'s slot, as the node on `port` sees the cluster. */
async function masterOf(port: number, key: string): Promise<number> {
	const client = directClient(port);
	try {
		const slot = (await client.cluster("KEYSLOT", key)) as number;
		const ranges = (await client.cluster("SLOTS")) as unknown as [number, number, [string, number]][];
		const range = ranges.find(([first, last]) => first <= slot && slot <= last);
		if (range === undefined) throw new Error(`no node serves slot ${slot}`);
		return range[2][1];
	} finally {
		client.disconnect();
	}
}

/** The role ("master" or "slave") of the node on `port`. */
async function role(port: number): Promise<string> {
	const client = directClient(port);
	try {
		return String(((await client.call("ROLE")) as unknown[])[0]);
	} finally {
		client.disconnect();
	}
}

test("a cluster of 3 masters and 3 replicas: the master holding most counts killed under load, every answer a 200 or a 429, then counted in the cluster again", async () => {
	// The count's least-privilege user, and what ioredis asks a cluster of its slots and state.
	const cluster = await topology.cluster(3, [
		`user testfax on >cluster-secret ${COUNT_ACL} +cluster|slots +cluster|info ~${PREFIX}*`,
	]);
	const server = await startServer({
		REDIS_CLUSTER_NODES: cluster.nodes.map((node) => node.address).join(","),
		REDIS_USERNAME: "testfax",
		REDIS_PASSWORD: "cluster-secret",
	});
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "redis",
		mode: "cluster",
		countedInMemory: 0,
		fallbacks: 0,
	});

	const load = startLoad(server.url, clientAddresses(5000));
	await until("counts on every master", async () => {
		const masters = await mastersOf(cluster.nodes);
		return (
			masters.length === 3 &&
			(await Promise.all(masters.map((node) => keyCount(node.port)))).every((count) => count > 50)
		);
	});
	const masters = await mastersOf(cluster.nodes);
	const counts = await Promise.all(masters.map((node) => keyCount(node.port)));
	const victim = masters[counts.indexOf(Math.max(...counts))] as RedisProcess;
	// Clients whose counts live on the victim's slots: one to watch the failover, one for afterwards.
	const [watched = "", fresh = ""] = await addressesServedBy(victim.port, 2);

	const inspector = cluster.client();
	try {
		const run = await measureFailover(
			server,
			load,
			() => victim.kill("SIGKILL"),
			watched,
			async () => (await inspector.get(`${PREFIX}${watched}`)) !== null,
		);
		expect(run.tally.failed).toEqual([]);
		expect(run.otherStatuses).toEqual([]);
		await expectCountedInRedis(server, fresh, () => inspector.get(`${PREFIX}${fresh}`));
		console.log(`cluster failover (the master with the most counts): ${run.summary}`);
	} finally {
		inspector.disconnect();
	}
}, 120_000);

async function mastersOf(nodes: RedisProcess[]): Promise<RedisProcess[]> {
	const roles = await Promise.all(nodes.map((node) => role(node.port)));
	return nodes.filter((_, index) => roles[index] === "master");
}

/** `count` client addresses not used by the load, whose count keys hash to slots of the master on `port`. */
async function addressesServedBy(port: number, count: number): Promise<string[]> {
	const found: string[] = [];
	for (const address of clientAddresses(1000, 172)) {
		if ((await masterOf(port, `${PREFIX}${address}`)) === port) found.push(address);
		if (found.length === count) return found;
	}
	throw new Error(`fewer than ${count} addresses on the master on port ${port}`);
}
