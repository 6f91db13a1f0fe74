import { describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { eventsOf, type LogLine } from "../../../testkit/log.ts";
import { startRedisServer } from "../../../testkit/redis-server.ts";
import type { TestServer } from "../../../testkit/server.ts";
import { useRedisServer } from "../../../testkit/use-redis.ts";
import {
	type Answer,
	allowed,
	answerOf,
	from,
	realSuiteClock,
	send,
	sleepUntil,
	startOfSecond,
	useServers,
} from "./answers.ts";
import { defineRateLimitSuite } from "./suite.ts";

const redis = useRedisServer();

function newPrefix(): string {
	return `test:http:${crypto.randomUUID()}:`;
}

function redisEnv(prefix = newPrefix()): Record<string, string> {
	return { REDIS_URL: redis.server.url, RATE_LIMIT_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "60" };
}

// In real time: a key's window ends when Redis's own clock expires it.
defineRateLimitSuite({ name: "Redis", env: () => redisEnv(), clock: realSuiteClock });

const UNAVAILABLE = /^rate limit: Redis unavailable; counting in process memory until it is back \(.+\)$/;
const BACK = "rate limit: Redis is reachable again; counting in Redis";

/**
 * Sends one request and fails the test if answering took 1 s or more: with
 * Redis gone a request waits at most the 100 ms command timeout, never
 * ioredis's 1 s connection attempt or its queue. The bound leaves a loaded
 * machine its own delays.
 */
async function timedSend(server: TestServer, path = "/api/faxes"): Promise<Answer> {
	const started = performance.now();
	const response = await server.request(path);
	await response.arrayBuffer();
	expect(performance.now() - started).toBeLessThan(1000);
	return answerOf(response);
}

/**
 * Sends requests until Redis holds `key`: the answers before the last were
 * counted in memory, the last one in Redis. Fails after 5 s.
 */
async function sendUntilCountedInRedis(server: TestServer, watcher: Redis, key: string): Promise<Answer[]> {
	const answers: Answer[] = [];
	const deadline = Date.now() + 5000;
	while ((await watcher.get(key)) === null) {
		if (Date.now() > deadline) throw new Error(`no request was counted in Redis as ${key} within 5 s`);
		await Bun.sleep(20);
		answers.push(await timedSend(server));
	}
	return answers;
}

describe("rate limit over HTTP, Redis only", () => {
	const servers = useServers();

	test("counts live in Redis under the prefix and client key and expire with the window", async () => {
		const prefix = newPrefix();
		const server = await servers.start({ ...redisEnv(prefix), HOST: "::", TRUST_PROXY: "127.0.0.1" });
		await send(server, "/api/faxes");
		await send(server, "/api/faxes/fax_none1");
		await send(server, "/api/faxes", from("2001:db8:1:2::1"));
		await send(server, "/api/faxes", from("2001:db8:1:2:ffff::9"));
		await send(server, "/api/faxes", from("::ffff:203.0.113.7"));
		const v6 = await fetch(`http://[::1]:${server.port}/api/faxes`, {
			headers: { "user-agent": "testfax-tests/1.0" },
		});
		await v6.arrayBuffer();

		const keys = (await redis.checker.keys(`${prefix}*`)).sort();
		expect(keys).toEqual([
			`${prefix}127.0.0.1`,
			`${prefix}2001:db8:1:2::/64`,
			`${prefix}203.0.113.7`,
			`${prefix}::/64`,
		]);
		expect(await redis.checker.mget(keys)).toEqual(["2", "2", "1", "1"]);
		for (const key of keys) {
			const ttl = await redis.checker.pttl(key);
			expect(ttl).toBeGreaterThan(59_000);
			expect(ttl).toBeLessThanOrEqual(60_000);
		}
	});

	test("past its limit a key is refused from memory until its window ends: the same 429, no Redis command", async () => {
		const prefix = newPrefix();
		const key = `${prefix}127.0.0.1`;
		const server = await servers.start({
			...redisEnv(prefix),
			RATE_LIMIT_PER_MINUTE: "2",
			RATE_LIMIT_WINDOW_SECONDS: "2",
		});
		const scriptCalls = async () => {
			const stats = await redis.checker.info("commandstats");
			return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
				(sum, [, calls]) => sum + Number(calls),
				0,
			);
		};
		const second = await startOfSecond();
		const openedAt = Date.now();
		const counted = [await send(server, "/api/faxes"), await send(server, "/api/faxes/fax_none1")];
		const firstRefusal = await send(server, "/api/faxes");
		const callsBefore = await scriptCalls();
		const refusals: Answer[] = [];
		for (let i = 0; i < 20; i++)
			refusals.push(await send(server, i % 2 === 0 ? "/api/faxes" : "/api/faxes/x"));
		const callsAfter = await scriptCalls();
		const countInRedis = await redis.checker.get(key);
		await sleepUntil(openedAt + 2200);
		const renewed = await send(server, "/api/faxes");

		const refused = { status: 429, limit: "2", remaining: "0", retryAfter: "2", reset: String(second + 3) };
		expect(counted).toEqual([allowed(1, 2), allowed(0, 2, 404)]);
		expect(firstRefusal).toEqual(refused);
		expect(refusals).toEqual(Array.from({ length: 20 }, () => refused));
		expect([callsAfter - callsBefore, countInRedis]).toEqual([0, "3"]);
		expect(renewed).toEqual(allowed(1, 2));
		expect(await redis.checker.get(key)).toBe("1");
	});

	test("two instances on one Redis share every count", async () => {
		const env = redisEnv();
		const one = await servers.start(env);
		const two = await servers.start(env);
		const answers: Answer[] = [];
		for (let i = 0; i < 30; i++) {
			answers.push(await send(one, "/api/faxes"));
			answers.push(await send(two, `/api/faxes/fax_none${i}`));
		}
		const refused = [await send(one, "/api/faxes"), await send(two, "/api/faxes")];

		expect(answers).toEqual(
			Array.from({ length: 60 }, (_, i) => allowed(59 - i, 60, i % 2 === 0 ? 200 : 404)),
		);
		expect(refused.map(({ status, remaining }) => ({ status, remaining }))).toEqual([
			{ status: 429, remaining: "0" },
			{ status: 429, remaining: "0" },
		]);
		// Both instances read the window's end from the one Redis key.
		expect(refused[0]?.reset).toBe(refused[1]?.reset ?? "");
		expect(await redis.checker.get(`${env.RATE_LIMIT_PREFIX}127.0.0.1`)).toBe("62");
	});

	test("a different RATE_LIMIT_PREFIX keeps deployments on one Redis apart", async () => {
		const one = await servers.start({ ...redisEnv(), RATE_LIMIT_PER_MINUTE: "2" });
		const other = await servers.start({ ...redisEnv(), RATE_LIMIT_PER_MINUTE: "2" });
		const answers = [
			await send(one, "/api/faxes"),
			await send(one, "/api/faxes"),
			await send(one, "/api/faxes"),
			await send(other, "/api/faxes"),
			await send(other, "/api/faxes"),
		];
		expect(answers.map(({ status, remaining }) => `${status} ${remaining}`)).toEqual([
			"200 1",
			"200 0",
			"429 0",
			"200 1",
			"200 0",
		]);
	});

	test("Redis stopped mid-run: answers come from memory at once; restarted: counting goes back to Redis", async () => {
		// A Redis of its own: stopping the shared one would disturb the other tests' redis.checker.
		const outage = await startRedisServer();
		const watcher = new Redis(outage.url);
		watcher.on("error", () => {});
		try {
			const logs: LogLine[] = [];
			const prefix = newPrefix();
			const key = `${prefix}127.0.0.1`;
			const server = await servers.start({ ...redisEnv(prefix), REDIS_URL: outage.url }, logs);

			const before = [await timedSend(server), await timedSend(server), await timedSend(server)];
			expect(before).toEqual([allowed(59), allowed(58), allowed(57)]);
			expect(await watcher.get(key)).toBe("3");
			expect(eventsOf(logs)).toEqual([]);

			await outage.stop();
			const during: Answer[] = [];
			for (let i = 0; i < 10; i++)
				during.push(await timedSend(server, i % 2 ? "/api/faxes/fax_none1" : "/api/faxes"));
			// The in-process window knows nothing of Redis's count: it starts afresh.
			expect(during).toEqual(Array.from({ length: 10 }, (_, i) => allowed(59 - i, 60, i % 2 ? 404 : 200)));
			expect(eventsOf(logs)).toHaveLength(1);
			expect(eventsOf(logs)[0]).toMatch(UNAVAILABLE);

			// The restarted Redis has no data, so the key appears with the first request it counts.
			await outage.restart();
			const after = await sendUntilCountedInRedis(server, watcher, key);
			const memoryCounted = after.length - 1;
			expect(after).toEqual([
				...Array.from({ length: memoryCounted }, (_, i) => allowed(49 - i)),
				allowed(59),
			]);
			expect([await timedSend(server), await timedSend(server)]).toEqual([allowed(58), allowed(57)]);
			expect(await watcher.get(key)).toBe("3");
			expect(eventsOf(logs)).toHaveLength(2);
			expect(eventsOf(logs)[1]).toBe(BACK);
		} finally {
			watcher.disconnect();
			await outage.close();
		}
	});

	test("Redis down at start: the server still starts, counts in memory, then picks Redis up", async () => {
		const late = await startRedisServer();
		const watcher = new Redis(late.url);
		watcher.on("error", () => {});
		try {
			await late.stop();
			const logs: LogLine[] = [];
			const prefix = newPrefix();
			const server = await servers.start({ ...redisEnv(prefix), REDIS_URL: late.url }, logs);
			const during = [await timedSend(server), await timedSend(server)];
			expect(during).toEqual([allowed(59), allowed(58)]);

			await late.restart();
			const after = await sendUntilCountedInRedis(server, watcher, `${prefix}127.0.0.1`);
			const memoryCounted = after.length - 1;
			expect(after).toEqual([
				...Array.from({ length: memoryCounted }, (_, i) => allowed(57 - i)),
				allowed(59),
			]);
			// The first request may meet ioredis between two attempts or inside
			// one; either way the last attempt's refusal is named.
			const [down, ...rest] = eventsOf(logs);
			const port = new URL(late.url).port;
			expect([
				`rate limit: Redis unavailable; counting in process memory until it is back (connection reconnecting: connect ECONNREFUSED 127.0.0.1:${port})`,
				`rate limit: Redis unavailable; counting in process memory until it is back (connection connecting: connect ECONNREFUSED 127.0.0.1:${port})`,
			]).toContain(down as string);
			expect(rest).toEqual([BACK]);
		} finally {
			watcher.disconnect();
			await late.close();
		}
	});

	test("Redis too slow: answers come from memory within the timeout, then Redis counts again", async () => {
		const logs: LogLine[] = [];
		const prefix = newPrefix();
		const key = `${prefix}127.0.0.1`;
		const server = await servers.start(redisEnv(prefix), logs);
		expect(await send(server, "/api/faxes")).toEqual(allowed(59));

		// CLIENT PAUSE holds every client's commands, so the server's script call times out.
		await redis.checker.call("CLIENT", "PAUSE", "400", "ALL");
		const slow = [await timedSend(server), await timedSend(server)];
		expect(slow).toEqual([allowed(59), allowed(58)]);
		expect(eventsOf(logs)).toEqual([
			"rate limit: Redis unavailable; counting in process memory until it is back (Command timed out)",
		]);

		// After a failed call Redis is tried again only a second later; until
		// then the in-process window goes on counting.
		const after: Answer[] = [];
		const deadline = Date.now() + 5000;
		while (eventsOf(logs).length < 2) {
			if (Date.now() > deadline) throw new Error("still counting in memory 5 s after Redis answered again");
			await Bun.sleep(50);
			after.push(await timedSend(server));
		}
		expect(eventsOf(logs)[1]).toBe(BACK);
		// Redis ran the timed-out call once the pause ended, so that request
		// counts in both stores: 1 before, 1 timed out, 1 now.
		expect(await redis.checker.get(key)).toBe("3");
		const memoryCounted = after.length - 1;
		expect(after).toEqual([...Array.from({ length: memoryCounted }, (_, i) => allowed(57 - i)), allowed(57)]);
	});
});
