import { afterEach, expect, test } from "bun:test";
import { startRedisServer } from "../../testkit/redis-server.ts";

const saved = { PATH: process.env.PATH, REDIS_URL: process.env.REDIS_URL };

afterEach(() => {
	process.env.PATH = saved.PATH;
	if (saved.REDIS_URL === undefined) delete process.env.REDIS_URL;
	else process.env.REDIS_URL = saved.REDIS_URL;
});

test("without redis-server installed, the set-up says how to install it", async () => {
	process.env.PATH = "/nonexistent";
	delete process.env.REDIS_URL;
	await expect(startRedisServer()).rejects.toThrow(
		"install it with `apt-get update && apt-get install -y redis-server`",
	);
});

test("a server given by REDIS_URL cannot be stopped, and says so", async () => {
	process.env.REDIS_URL = "redis://127.0.0.1:6390";
	const server = await startRedisServer();
	expect(server).toMatchObject({ url: "redis://127.0.0.1:6390", port: 6390, external: true });
	await expect(server.stop()).rejects.toThrow("unset REDIS_URL");
	await expect(server.restart()).rejects.toThrow("unset REDIS_URL");
	await server.close();
});
