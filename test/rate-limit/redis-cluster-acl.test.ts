import { expect, test } from "bun:test";
import { join } from "node:path";
import { refusedFromTheStart, useRedisTopology } from "../../testkit/redis-failover.ts";
import { COUNT_ACL, keyCount } from "../../testkit/redis-topology.ts";

// A file of its own: beside the failover test's cluster, in the same
// topology, a second cluster did not form ("node is not empty").
const { topology, startServer } = useRedisTopology();
const PREFIX = "testfax:rl:";

test("an ACL user the cluster will not tell its slots: counted in memory from the start, and the log names the refusal", async () => {
	const cluster = await topology.cluster(3, [`user testfax on >cluster-secret ${COUNT_ACL} ~${PREFIX}*`]);
	const logFile = join(topology.dir, "server.log");
	const server = await startServer(
		{
			REDIS_CLUSTER_NODES: cluster.nodes.map((node) => node.address).join(","),
			REDIS_USERNAME: "testfax",
			REDIS_PASSWORD: "cluster-secret",
		},
		{ logFile },
	);
	expect(await refusedFromTheStart(server, logFile, "cluster", "192.0.2.12")).toMatch(
		/^connection (re)?connecting: Failed to refresh slots cache\. NOPERM this user has no permissions to run the 'cluster\|slots' command$/,
	);
	let stored = 0;
	for (const node of cluster.nodes) stored += await keyCount(node.port);
	expect(stored).toBe(0);
});
