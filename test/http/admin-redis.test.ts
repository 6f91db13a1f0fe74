import { afterAll, expect, test } from "bun:test";
import { freePort } from "../../testkit/ports.ts";
import { sample } from "../../testkit/prometheus.ts";
import { type RedisServer, startRedisServer } from "../../testkit/redis-server.ts";
import { type TestServer, useTestServers } from "../../testkit/server.ts";

const startServer = useTestServers();
let redis: RedisServer | undefined;
afterAll(() => redis?.close());

/** The report while the count is in memory: `fallbacks` stays 0 until a request makes the switch. */
const IN_MEMORY = {
	ready: 200,
	backend: "memory-fallback",
	mode: "single",
	single: 1,
	redis: 0,
	memory: 1,
	fallbacks: 0,
};

/** Readiness status, rate-limit backend and the backend gauges, as the admin listener tells them. */
async function report(server: TestServer) {
	const ready = await server.admin("/readyz");
	const body = (await ready.json()) as { rate_limit: string; redis_mode: string };
	const metrics = await (await server.admin("/metrics")).text();
	return {
		ready: ready.status,
		backend: body.rate_limit,
		mode: body.redis_mode,
		single: sample(metrics, 'testfax_rate_limit_redis_mode{mode="single"}'),
		redis: sample(metrics, 'testfax_rate_limit_backend{backend="redis"}'),
		memory: sample(metrics, 'testfax_rate_limit_backend{backend="memory"}'),
		fallbacks: sample(metrics, "testfax_rate_limit_fallbacks_total"),
	};
}

test("while Redis is down the instance stays ready, names the fallback, and the backend gauge flips", async () => {
	redis = await startRedisServer();
	const server = await startServer({
		env: { REDIS_URL: redis.url, RATE_LIMIT_PREFIX: `t:${crypto.randomUUID()}:` },
	});
	await (await server.request("/api/faxes")).arrayBuffer();
	expect(await report(server)).toEqual({
		ready: 200,
		backend: "redis",
		mode: "single",
		single: 1,
		redis: 1,
		memory: 0,
		fallbacks: 0,
	});

	await redis.stop();
	await (await server.request("/api/faxes")).arrayBuffer();
	expect(await report(server)).toEqual({ ...IN_MEMORY, fallbacks: 1 });

	await redis.restart();
	const deadline = Date.now() + 5000;
	while ((await report(server)).backend !== "redis" && Date.now() < deadline) {
		await Bun.sleep(50);
		await (await server.request("/api/faxes")).arrayBuffer();
	}
	expect(await report(server)).toEqual({
		ready: 200,
		backend: "redis",
		mode: "single",
		single: 1,
		redis: 1,
		memory: 0,
		fallbacks: 1,
	});
});

test("a server that starts while Redis is unreachable names the fallback before any request", async () => {
	const server = await startServer({
		env: {
			REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
			RATE_LIMIT_PREFIX: `t:${crypto.randomUUID()}:`,
		},
	});
	expect(await report(server)).toEqual(IN_MEMORY);
});

test("readiness names the fallback as soon as the connection to Redis is lost, not at the next request", async () => {
	const own = await startRedisServer();
	try {
		const server = await startServer({
			env: { REDIS_URL: own.url, RATE_LIMIT_PREFIX: `t:${crypto.randomUUID()}:` },
		});
		expect((await report(server)).backend).toBe("redis");
		await own.stop();
		const deadline = Date.now() + 5000;
		while ((await report(server)).backend === "redis" && Date.now() < deadline) await Bun.sleep(50);
		expect(await report(server)).toEqual(IN_MEMORY);
	} finally {
		await own.close();
	}
});
