import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { rateLimitReport, SIXTY_THEN_429, statusesFrom } from "../../testkit/redis-failover.ts";
import { directClient, RedisTopology } from "../../testkit/redis-topology.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const topology = new RedisTopology();
const dir = makeTempDir();
const servers: { child: Bun.Subprocess }[] = [];
afterAll(async () => {
	for (const server of servers) server.child.kill("SIGKILL");
	await topology.close();
	rmSync(dir, { recursive: true, force: true });
});

const USER = { name: "testfax", password: "pa/ss+word=1", keyPattern: "testfax:rl:*" };
const env = {
	DATABASE_PATH: join(dir, "faxes.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	PURGE_INTERVAL: "0",
	TRUST_PROXY: "127.0.0.1",
};

async function start(extra: Record<string, string>) {
	const server = await startServerProcess({ ...env, ...extra });
	servers.push(server);
	return server;
}

test("a TLS-only Redis with a private CA and an ACL user: counted there, exactly 60 then 429", async () => {
	const redis = await topology.tlsServer("trusted", USER);
	const url = `rediss://${USER.name}:${encodeURIComponent(USER.password)}@127.0.0.1:${redis.port}`;
	const server = await start({ REDIS_URL: url, REDIS_TLS_CA_FILE: redis.caFile });
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

test("without the CA the certificate is refused: the server starts, counts in memory, and says so", async () => {
	const redis = await topology.tlsServer("untrusted", USER);
	const url = `rediss://${USER.name}:${encodeURIComponent(USER.password)}@127.0.0.1:${redis.port}`;
	const server = await start({ REDIS_URL: url });
	expect(await statusesFrom(server.url, "192.0.2.11", 61)).toEqual(SIXTY_THEN_429);
	expect(await rateLimitReport(server.adminUrl)).toEqual({
		backend: "memory-fallback",
		mode: "single",
		countedInMemory: 61,
		fallbacks: 1,
	});
});
