import { afterAll, beforeAll } from "bun:test";
import { Redis } from "ioredis";
import { type RedisServer, startRedisServer } from "./redis-server.ts";

export interface RedisFixture {
	/** The throwaway redis-server of this test file. */
	readonly server: RedisServer;
	/** A plain client for looking at keys; it never retries, so an outage fails fast. */
	readonly checker: Redis;
	/** A key prefix of its own keeps each test's keys apart, also on a shared REDIS_URL. */
	uniquePrefix(): string;
}

/** Starts one redis-server for the test file that calls it, and stops it after the file. */
export function useRedisServer(): RedisFixture {
	let server: RedisServer | undefined;
	let checker: Redis | undefined;
	beforeAll(async () => {
		server = await startRedisServer();
		checker = new Redis(server.url, { maxRetriesPerRequest: 0 });
		checker.on("error", () => {});
	});
	afterAll(async () => {
		checker?.disconnect();
		await server?.close();
	});
	const started = <T>(value: T | undefined): T => {
		if (value === undefined) throw new Error("useRedisServer(): used before its beforeAll ran");
		return value;
	};
	return {
		get server() {
			return started(server);
		},
		get checker() {
			return started(checker);
		},
		uniquePrefix: () => `test:rl:${crypto.randomUUID()}:`,
	};
}
