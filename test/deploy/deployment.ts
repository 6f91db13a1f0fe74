/**
 * `npm run test:deploy`: the topology of deploy/docker-compose.yml without
 * Docker. Real nginx on loopback (deploy/nginx/proxy.conf) in front of two
 * server processes sharing one SQLite file and one redis-server. Clients come
 * from addresses of their own in 127.0.0.0/8; nginx reaches the instances from
 * 127.0.0.1, the only trusted proxy.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { type Nginx, startNginx } from "../../testkit/nginx.ts";
import { freePort } from "../../testkit/ports.ts";
import { type RedisServer, startRedisServer } from "../../testkit/redis-server.ts";
import { makeTempDir, runFax } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

// Outside the default test run, so bunfig.toml's timeout does not reach it.
setDefaultTimeout(60_000);

const ROOT = join(import.meta.dir, "../..");
const dir = makeTempDir();
const shared = {
	DATABASE_PATH: join(dir, "faxes.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	SEED_DEMO: "0",
	CDN_BASE_URL: "http://cdn.test.example",
	SITE_BASE_URL: "http://site.test.example",
};

interface Instance {
	name: string;
	port: number;
	adminPort: number;
	child?: Bun.Subprocess;
}

let redis: RedisServer;
let nginx: Nginx;
const instances: Instance[] = [];
let prefix = "";

async function start(instance: Instance): Promise<void> {
	const started = await startServerProcess({
		...shared,
		PORT: String(instance.port),
		ADMIN_PORT: String(instance.adminPort),
		REDIS_URL: redis.url,
		RATE_LIMIT_PREFIX: prefix,
		TRUST_PROXY: "127.0.0.1",
		SHUTDOWN_DELAY_SECONDS: "1",
		SHUTDOWN_TIMEOUT_SECONDS: "10",
	});
	instance.child = started.child;
}

beforeAll(async () => {
	redis = await startRedisServer();
	prefix = `deploy:${crypto.randomUUID()}:`;
	for (const name of ["api1", "api2"]) {
		instances.push({ name, port: await freePort(), adminPort: await freePort() });
	}
	for (const instance of instances) await start(instance);
	nginx = await startNginx(join(dir, "nginx"), [instances[0]?.port ?? 0, instances[1]?.port ?? 0]);
});

afterAll(async () => {
	await nginx?.stop();
	for (const instance of instances) {
		instance.child?.kill("SIGTERM");
		await instance.child?.exited;
	}
	await redis?.close();
	rmSync(dir, { recursive: true, force: true });
});

interface Answer {
	status: number;
	headers: Record<string, string>;
	body: string;
	ms: number;
}

/** One GET to nginx over a fresh connection from `localAddress`; status 0 when no answer came. */
function get(path: string, localAddress: string, headers: Record<string, string> = {}): Promise<Answer> {
	const started = performance.now();
	return new Promise((resolve) => {
		const socket = new Socket();
		const chunks: Buffer[] = [];
		const done = () => {
			const text = Buffer.concat(chunks).toString("utf8");
			const split = text.indexOf("\r\n\r\n");
			const lines = text.slice(0, split === -1 ? text.length : split).split("\r\n");
			const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
			const parsed: Record<string, string> = {};
			for (const line of lines.slice(1)) {
				const colon = line.indexOf(":");
				if (colon > 0) parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
			}
			resolve({
				status,
				headers: parsed,
				body: split === -1 ? "" : text.slice(split + 4),
				ms: performance.now() - started,
			});
		};
		socket.on("data", (chunk: Buffer) => chunks.push(chunk));
		socket.on("end", done);
		socket.on("error", () => {
			chunks.length = 0;
			done();
		});
		socket.connect({ port: nginx.port, host: "127.0.0.1", localAddress }, () => {
			const extra = Object.entries(headers)
				.map(([name, value]) => `${name}: ${value}\r\n`)
				.join("");
			socket.write(
				`GET ${path} HTTP/1.1\r\nHost: api.test\r\nUser-Agent: deploy-test\r\n${extra}Connection: close\r\n\r\n`,
			);
		});
	});
}

/** Closed-loop load through nginx, each request from the next of 2048 client addresses, until stopped. */
function load(paths: string[], workers = 8) {
	const answers: { status: number; ms: number; at: number }[] = [];
	let running = true;
	let next = 0;
	const worker = async () => {
		while (running) {
			const n = next++;
			const address = `127.0.${100 + ((n >> 8) & 7)}.${n & 255}`;
			const answer = await get(paths[n % paths.length] ?? "/api/faxes", address);
			answers.push({ status: answer.status, ms: answer.ms, at: performance.now() });
		}
	};
	const all = Promise.all(Array.from({ length: workers }, worker));
	return {
		answers,
		async stop() {
			running = false;
			await all;
			return answers;
		},
	};
}

function p99(samples: number[]): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

function summary(name: string, answers: { status: number; ms: number }[], window = answers) {
	const failed = answers.filter((answer) => answer.status !== 200);
	const statuses: Record<number, number> = {};
	for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
	console.log(
		`${name}: ${answers.length} requests sent, ${failed.length} failed, p99 ${p99(window.map((a) => a.ms)).toFixed(1)} ms over ${window.length} requests in the window (statuses ${JSON.stringify(statuses)})`,
	);
	return failed.length;
}

async function readyz(instance: Instance): Promise<number> {
	try {
		return (await fetch(`http://127.0.0.1:${instance.adminPort}/readyz`, { keepalive: false })).status;
	} catch {
		return 0;
	}
}

// A bound that holds on a loaded 2-core machine: a restarted instance's first
// readiness also asks `fax check` in a process of its own.
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await Bun.sleep(10);
	}
}

test("the count is shared: 60 through the proxy, then 429, whichever instance answers", async () => {
	const answers: Answer[] = [];
	for (let i = 0; i < 64; i++) answers.push(await get("/api/faxes", "127.0.0.2"));
	expect(answers.map((answer) => answer.status)).toEqual([...Array(60).fill(200), ...Array(4).fill(429)]);
	expect(answers.map((answer) => answer.headers["x-ratelimit-remaining"])).toEqual([
		...Array.from({ length: 60 }, (_, i) => String(59 - i)),
		"0",
		"0",
		"0",
		"0",
	]);
	const upstreams = new Set(answers.map((answer) => answer.headers["x-upstream"]));
	expect(upstreams).toEqual(new Set(instances.map((instance) => `127.0.0.1:${instance.port}`)));
	const refusedBy = new Set(answers.slice(60).map((answer) => answer.headers["x-upstream"]));
	expect(refusedBy.size).toBe(2);
});

test("the client address comes from the proxy; a forged X-Forwarded-For changes nothing", async () => {
	const forged = await get("/api/faxes", "127.0.0.2", { "X-Forwarded-For": "203.0.113.50" });
	expect(forged.status).toBe(429);
	const other = await get("/api/faxes", "127.0.0.3", { "X-Forwarded-For": "127.0.0.2" });
	expect([other.status, other.headers["x-ratelimit-remaining"]]).toEqual([200, "59"]);
	const check = await fetch(`http://127.0.0.1:${instances[0]?.adminPort}/metrics`).then((r) => r.text());
	expect(check).toContain('testfax_rate_limit_backend{backend="redis"} 1');
});

test("a fax ingested into the shared file is listed by both instances on the next request", async () => {
	const ingested = await ingestFixture("+1 555 010 4242");
	expect(ingested.code).toBe(0);
	const slug = ingested.stdout.trim();
	for (const instance of instances) {
		const list = (await (
			await fetch(`http://127.0.0.1:${instance.port}/api/faxes`, { headers: { "user-agent": "deploy-test" } })
		).json()) as { slug: string }[];
		expect([instance.name, list[0]?.slug]).toEqual([instance.name, slug]);
	}
	const viaProxy = await get(`/api/faxes/${slug}`, "127.0.0.4");
	expect(viaProxy.status).toBe(200);
});

/** `fax ingest` of the fixture fax into the shared file, from `sender`. */
function ingestFixture(sender: string) {
	return runFax(
		["ingest", join(ROOT, "fixtures/ingest/fax-g3-2d.tif"), "--source", "phone", "--sender", sender],
		shared,
	);
}

/** Held polls through nginx, each from an address of its own, so the shared rate limit counts them apart. */
function holdMany(count: number, path: string, headers: Record<string, string> = {}) {
	return Array.from({ length: count }, (_, i) =>
		get(path, `127.0.1.${i + 1}`, headers).then((answer) => ({ ...answer, at: performance.now() })),
	);
}

async function heldOn(instance: Instance): Promise<number> {
	const metrics = await fetch(`http://127.0.0.1:${instance.adminPort}/metrics`).then((r) => r.text());
	return Number(/\ntestfax_held_requests (\d+)\n/.exec(metrics)?.[1] ?? -1);
}

async function heldEverywhere(): Promise<number> {
	let total = 0;
	for (const instance of instances) total += await heldOn(instance);
	return total;
}

test("held polls through nginx on both instances are answered by an ingest into the shared file", async () => {
	const since = new Date(Date.now() - 1000).toISOString().slice(0, 19);
	const path = `/api/faxes?since=${since}Z&limit=100&from=%2B15550104343&wait=30`;
	const held = holdMany(8, path);
	await until(async () => (await heldEverywhere()) === 8, "8 polls held");
	expect(await Promise.all(instances.map(heldOn))).toEqual([4, 4]);
	const ingested = await ingestFixture("+1 555 010 4343");
	const exited = performance.now();
	expect(ingested.code).toBe(0);
	const answers = await Promise.all(held);
	const latest = Math.max(...answers.map((answer) => answer.at)) - exited;
	console.log(
		`ingest wake-up through nginx: the last of 8 held polls answered ${latest.toFixed(0)} ms after the ingest was seen to exit`,
	);
	expect(answers.map((answer) => [answer.status, JSON.parse(answer.body)[0]?.slug])).toEqual(
		Array(8).fill([200, ingested.stdout.trim()]),
	);
	// Woken by the ingest, not answered at the 27–30 s time limit; the bound leaves a loaded machine its delays.
	expect(latest).toBeLessThan(10_000);
});

test("an instance restarted while polls are held answers its own at once and loses none", async () => {
	const path = "/api/faxes?limit=100&wait=30";
	const etag = (await get("/api/faxes?limit=100", "127.0.2.1")).headers.etag ?? "";
	expect(etag).toMatch(/^W\//);
	const held = holdMany(10, path, { "If-None-Match": etag });
	await until(async () => (await heldEverywhere()) === 10, "10 polls held");
	const [stopping, staying] = instances as [Instance, Instance];
	const began = performance.now();
	stopping.child?.kill("SIGTERM");
	expect(await stopping.child?.exited).toBe(0);
	const stoppedMs = performance.now() - began;
	// The other instance's polls are still held; the restarted one's were answered as at their time limit.
	expect(await heldOn(staying)).toBe(5);
	await start(stopping);
	await until(async () => (await readyz(stopping)) === 200, `${stopping.name} ready again`);
	const answers = await Promise.all(
		held.map((answer) => Promise.race([answer, Bun.sleep(500).then(() => null)])),
	);
	const early = answers.filter((answer) => answer !== null);
	console.log(
		`restart while held: stopped in ${stoppedMs.toFixed(0)} ms, ${early.length} of 10 answered at once`,
	);
	expect(early.map((answer) => [answer.status, answer.headers["x-upstream"]])).toEqual(
		Array(5).fill([304, `127.0.0.1:${stopping.port}`]),
	);
	// Not waiting out the held polls' 27–30 s.
	expect(stoppedMs).toBeLessThan(10_000);
	// The rest are answered at their time limit by the instance that stayed, with nothing lost.
	const rest = await Promise.all(held);
	expect(rest.map((answer) => answer.status)).toEqual(Array(10).fill(304));
	await Bun.sleep(1500);
});

test("a rolling restart under load loses no request, each instance reporting not ready first", async () => {
	const slug = (
		(await (
			await fetch(`http://127.0.0.1:${instances[0]?.port}/api/faxes`, { headers: { "user-agent": "t" } })
		).json()) as { slug: string }[]
	)[0]?.slug;
	const traffic = load(["/api/faxes", `/api/faxes/${slug}`]);
	await Bun.sleep(1000);
	const restartBegan = performance.now();
	for (const instance of instances) {
		instance.child?.kill("SIGTERM");
		await until(async () => (await readyz(instance)) === 503, `${instance.name} not ready after SIGTERM`);
		// Readiness says 503 while the instance still answers.
		expect(instance.child?.exitCode).toBeNull();
		expect(await instance.child?.exited).toBe(0);
		await start(instance);
		await until(async () => (await readyz(instance)) === 200, `${instance.name} ready again`);
		// nginx skips a failed instance for fail_timeout (1 s); let it come back before the next stops.
		await Bun.sleep(1500);
	}
	const restartEnded = performance.now();
	await Bun.sleep(500);
	const answers = await traffic.stop();
	const during = answers.filter((answer) => answer.at >= restartBegan && answer.at <= restartEnded);
	expect(summary("rolling restart", answers, during)).toBe(0);
	expect(during.length).toBeGreaterThan(100);
});

test("Redis killed and restarted behind the instances loses no request", async () => {
	const traffic = load(["/api/faxes"]);
	await Bun.sleep(500);
	const began = performance.now();
	await redis.stop("SIGKILL");
	await Bun.sleep(1500);
	await redis.restart();
	await until(
		async () =>
			(
				(await fetch(`http://127.0.0.1:${instances[0]?.adminPort}/readyz`).then((r) => r.json())) as {
					rate_limit: string;
				}
			).rate_limit === "redis",
		"counting in Redis again",
	);
	const ended = performance.now();
	await Bun.sleep(500);
	const answers = await traffic.stop();
	const during = answers.filter((answer) => answer.at >= began && answer.at <= ended);
	expect(summary("Redis killed and restarted", answers, during)).toBe(0);
});
