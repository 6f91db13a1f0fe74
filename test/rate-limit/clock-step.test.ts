import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ago, faxRecord } from "../../testkit/fixtures.ts";
import { rateLimitReport, statusesFrom } from "../../testkit/redis-failover.ts";
import { makeTempDir, runFax } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { steppedClock } from "../../testkit/stepped-clock.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

const redis = useRedisServer();
const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3600;
const WINDOW_SECONDS = 5;

const EXPECTED_LISTS = [
	["fax_new1", "fax_tie1", "fax_mid1", "fax_old1"],
	["fax_new1", "fax_tie1", "fax_mid1"],
];

/** Four faxes, two received in the same second, imported into a database of the env's. */
async function importFaxes(env: Record<string, string>): Promise<void> {
	const records = [
		faxRecord({ slug: "fax_new1", received_at: ago(60) }),
		faxRecord({ slug: "fax_mid1", received_at: ago(1800) }),
		faxRecord({ slug: "fax_tie1", received_at: ago(1800) }),
		faxRecord({ slug: "fax_old1", received_at: ago(5 * HOUR) }),
	];
	await Bun.write(join(dir, "faxes.json"), JSON.stringify(records));
	expect((await runFax(["import", join(dir, "faxes.json")], env)).code).toBe(0);
}

/** The slugs of the default list and of the last two hours, each asked as a client of its own count. */
function listsAsNewClients(url: string): () => Promise<string[][]> {
	let client = 0;
	const slugs = async (query: string) => {
		client++;
		const answer = await fetch(`${url}/api/faxes${query}`, {
			headers: { "x-forwarded-for": `192.0.2.${client}` },
		});
		expect(answer.status).toBe(200);
		return ((await answer.json()) as { slug: string }[]).map((fax) => fax.slug);
	};
	return async () => [await slugs(""), await slugs(`?since=${ago(2 * HOUR)}`)];
}

/** A list asked by the one client that gets used up: its status and when its window ends. */
async function askAsUsedUpClient(url: string) {
	const answer = await fetch(`${url}/api/faxes`);
	await answer.arrayBuffer();
	return {
		status: answer.status,
		retryAfter: Number(answer.headers.get("retry-after")),
		reset: Number(answer.headers.get("x-ratelimit-reset")),
	};
}

test("the server's wall clock stepped an hour back and ahead: a used-up client waits out only its window, and the lists stay the same", async () => {
	const env = {
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		RATE_LIMIT_PER_MINUTE: "3",
		RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
		TRUST_PROXY: "127.0.0.1",
	};
	await importFaxes(env);
	const clock = steppedClock(dir);
	const { child, url } = await startServerProcess({ ...env, ...clock.env });
	try {
		const lists = listsAsNewClients(url);
		expect(await lists()).toEqual(EXPECTED_LISTS);
		for (let i = 0; i < 3; i++) expect((await askAsUsedUpClient(url)).status).toBe(200);
		for (const step of [-HOUR, HOUR]) {
			clock.stepTo(step);
			const refused = await askAsUsedUpClient(url);
			const serverNow = Date.now() / 1000 + step;
			expect(refused.status).toBe(429);
			expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
			expect(refused.retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
			expect(Math.abs(refused.reset - (serverNow + refused.retryAfter))).toBeLessThanOrEqual(2);
			expect(await lists()).toEqual(EXPECTED_LISTS);
		}
		clock.stepTo(-HOUR);
		// In real time: what is under test is that the window ends by the child's own
		// monotonic clock, an hour's step of its wall clock notwithstanding.
		await Bun.sleep(WINDOW_SECONDS * 1000);
		expect((await askAsUsedUpClient(url)).status).toBe(200);
	} finally {
		child.kill("SIGKILL");
		await child.exited;
	}
});

test("Redis too slow, then the server's wall clock stepped an hour back: Redis is tried again a second later, not an hour", async () => {
	const clock = steppedClock(dir);
	const { child, url, adminUrl } = await startServerProcess({
		DATABASE_PATH: join(dir, "redis-step.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		TRUST_PROXY: "127.0.0.1",
		REDIS_URL: redis.server.url,
		RATE_LIMIT_PREFIX: redis.uniquePrefix(),
		...clock.env,
	});
	try {
		expect(await statusesFrom(url, "192.0.2.1", 1)).toEqual([200]);
		await redis.checker.call("CLIENT", "PAUSE", "300", "ALL");
		expect(await statusesFrom(url, "192.0.2.2", 1)).toEqual([200]);
		expect((await rateLimitReport(adminUrl)).backend).toBe("memory-fallback");
		clock.stepTo(-HOUR);
		const deadline = performance.now() + 5000;
		while ((await rateLimitReport(adminUrl)).backend !== "redis") {
			if (performance.now() > deadline)
				throw new Error("still counting in memory 5 s after Redis answered again");
			await statusesFrom(url, "192.0.2.3", 1);
			await Bun.sleep(100);
		}
	} finally {
		child.kill("SIGKILL");
		await child.exited;
	}
});
