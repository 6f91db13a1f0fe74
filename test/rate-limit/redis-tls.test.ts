import { expect, test } from "bun:test";
import { join } from "node:path";
import {
	rateLimitReport,
	refusedFromTheStart,
	SIXTY_THEN_429,
	statusesFrom,
	useRedisTopology,
} from "../../testkit/redis-failover.ts";
import { directClient } from "../../testkit/redis-topology.ts";

const { topology, startServer } = useRedisTopology();
const USER = { name: "testfax", password: "pa/ss+word=1", keyPattern: "testfax:rl:*" };
test("a TLS-only Redis with a private CA and an ACL user: counted there, exactly 60 then 429", async () => {
	const redis = await topology.tlsServer("trusted", USER);
	const url = `rediss://${USER.name}:${encodeURIComponent(USER.password)}@127.0.0.1:${redis.port}`;
	const server = await startServer({ REDIS_URL: url, REDIS_TLS_CA_FILE: redis.caFile });
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "redis",
		mode: "single",
		countedInMemory: 0,
		fallbacks: 0,
	});

	expect(await statusesFrom(server.url, "192.0.2.10", 61)).toEqual(SIXTY_THEN_429);
	const inspector = redis.inspector();
	const user = directClient(redis.port, {
		username: USER.name,
		password: USER.password,
		tls: { ca: await Bun.file(redis.caFile).text() },
	});
	try {
		expect(await inspector.get("testfax:rl:192.0.2.10")).toBe("61");
		// The ACL user may touch only the counts' keys, and only through the script.
		await expect(user.get("testfax:rl:192.0.2.10")).rejects.toThrow("NOPERM");
		await expect(user.eval("return redis.call('SET', KEYS[1], 1)", 1, "elsewhere")).rejects.toThrow("NOPERM");
	} finally {
		inspector.disconnect();
		user.disconnect();
	}
	expect((await rateLimitReport(server.adminUrl)).countedInMemory).toBe(0);
});

test("without the CA the certificate is refused: the server starts, counts in memory, and says why", async () => {
	const redis = await topology.tlsServer("untrusted", USER);
	const url = `rediss://${USER.name}:${encodeURIComponent(USER.password)}@127.0.0.1:${redis.port}`;
	const logFile = join(topology.dir, "server.log");
	const server = await startServer({ REDIS_URL: url }, { logFile });
	const reason = await refusedFromTheStart(server, logFile, "single", "192.0.2.11");
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "memory-fallback",
		mode: "single",
		countedInMemory: 61,
		fallbacks: 1,
	});
	// The first request finds the client connecting again or waiting to: either way the refusal is named.
	expect(reason).toMatch(/^connection (re)?connecting: self signed certificate in certificate chain$/);
});
