// `bun run bench:wait`: blocking polls (`wait` on GET /api/faxes) against
// their yardsticks, in one run on one server process (bin/server.ts, its own
// SQLite file, the in-process rate limit raised out of the way):
//
// - latency: from `fax ingest` exiting to a held client having the fax, for
//   BENCH_FAXES (200) faxes, each awaited by one client straight to the server
//   and one through nginx (deploy/nginx/proxy.conf); the yardstick is a client
//   polling every 15 s as the spec advises: a poll at a uniformly random phase
//   of its interval, plus the round trip of a plain GET measured beside each fax;
// - round trips: requests per found fax over a 2-minute wait, `fax wait`'s
//   client (waitForFax) with `wait` against a client polling every 15 s,
//   both running through the latency phase;
// - holding: 10,000 requests held (each its own sender and client address):
//   the server's RSS per held request, and the default list's throughput of
//   other clients meanwhile against none held;
// - a wake-up storm: one new fax with 10 waiters of its own among 10,000
//   held for other senders; time from `fax import` exiting to its waiters'
//   answers, and the server's CPU against the same fax with no others held.
//
// Needs nginx. Only ratios within one run mean something.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { formatUtcSeconds } from "../lib/fax/index.ts";
import { waitForFax } from "../lib/wait/index.ts";
import { childEnv } from "../testkit/child-env.ts";
import { startNginx } from "../testkit/nginx.ts";
import { makeTempDir } from "../testkit/server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { runLoad } from "./load.ts";

const ROOT = join(import.meta.dir, "..");
const FAXES = Number(process.env.BENCH_FAXES ?? 200);
const HELD = 10_000;
const STORM_WAITERS = 10;
const POLL_INTERVAL_SECONDS = 15;
const ROUND_TRIP_WAIT_SECONDS = 120;
const LOAD_SECONDS = 4;
const LOAD_CONNECTIONS = 16;
const TARGETS = { directP99Ms: 50, nginxP99Ms: 100, heldKiB: 20, throughputRatio: 0.9 };
const FIXTURE = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const AGENT = "testfax-bench/1.0";

const dir = makeTempDir();
const env = {
	DATABASE_PATH: join(dir, "faxes.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	SEED_DEMO: "0",
	LOG_LEVEL: "silent",
	RATE_LIMIT_PER_MINUTE: "1000000000",
	TRUST_PROXY: "127.0.0.1",
	WAIT_MAX_HELD: String(HELD * 2),
	PURGE_INTERVAL: "0",
};
const server = await startServerProcess(env);
const port = Number(new URL(server.url).port);
const nginx = await startNginx(join(dir, "nginx"), [port]);
const sinceNow = () => formatUtcSeconds(Math.floor(Date.now() / 1000) - 1);
const listPath = (sender: string, wait: number, since = sinceNow()) =>
	`/api/faxes?since=${since}&limit=100&from=${encodeURIComponent(sender)}&wait=${wait}`;

function quantile(samples: number[], q: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function heldNow(): Promise<number> {
	const metrics = await fetch(`${server.adminUrl}/metrics`).then((r) => r.text());
	return Number(/\ntestfax_held_requests (\d+)\n/.exec(metrics)?.[1] ?? 0);
}

async function untilHeld(count: number): Promise<void> {
	const deadline = Date.now() + 60_000;
	while ((await heldNow()) < count) {
		if (Date.now() > deadline) throw new Error(`fewer than ${count} held after 60 s`);
		await Bun.sleep(5);
	}
}

/** The server's RSS (KiB) and its main thread's CPU time (ns, from schedstat). */
function serverUsage(): { rssKiB: number; cpuNs: number } {
	const pid = server.child.pid;
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
	const cpuNs = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
	return { rssKiB, cpuNs };
}

function runFax(args: string[]) {
	return Bun.spawn([process.execPath, "bin/fax.ts", ...args], {
		cwd: ROOT,
		env: childEnv(env),
		stdout: "pipe",
		stderr: "inherit",
	});
}

async function importFax(sender: string): Promise<number> {
	const file = join(dir, `${crypto.randomUUID()}.json`);
	const record = { source: "phone", sender, received_at: sinceNow(), page_count: 1, file_size: 10 };
	await Bun.write(
		file,
		JSON.stringify([{ ...record, received_at: formatUtcSeconds(Math.floor(Date.now() / 1000)) }]),
	);
	const child = runFax(["import", file]);
	await child.exited;
	if (child.exitCode !== 0) throw new Error("fax import failed");
	return performance.now();
}

/** A held GET; resolves with the time its whole answer was in. */
function heldGet(base: string, path: string): Promise<number> {
	return fetch(`${base}${path}`, { headers: { "user-agent": AGENT } })
		.then((r) => r.text())
		.then(() => performance.now());
}

// Round trips: `fax wait`'s client with `wait`, and a client polling every 15 s
// as the spec advises, both started now; the fax comes after 2 minutes.
let withWaitRequests = 0;
const roundTripSender = "ROUND TRIP";
const withWait = waitForFax(
	{ baseUrl: server.url, from: roundTripSender, intervalSeconds: POLL_INTERVAL_SECONDS, timeoutSeconds: 300 },
	{
		fetch: (url, init) => {
			withWaitRequests++;
			return fetch(url, init);
		},
	},
);
async function specPoller(): Promise<number> {
	const url = `${server.url}/api/faxes?since=${sinceNow()}&limit=100&from=${encodeURIComponent(roundTripSender)}`;
	for (let requests = 1; ; requests++) {
		const list = (await fetch(url, { headers: { "user-agent": AGENT } }).then((r) => r.json())) as unknown[];
		if (list.length > 0) return requests;
		await Bun.sleep(POLL_INTERVAL_SECONDS * 1000);
	}
}
const polled = specPoller();
const roundTripFax = Bun.sleep(ROUND_TRIP_WAIT_SECONDS * 1000).then(() => importFax(roundTripSender));

// Latency.
const direct: number[] = [];
const proxied: number[] = [];
const pollerYardstick: number[] = [];
for (let i = 0; i < FAXES; i++) {
	const sender = `LATENCY ${i}`;
	const path = listPath(sender, 30);
	const before = await heldNow();
	const answers = [heldGet(server.url, path), heldGet(`http://127.0.0.1:${nginx.port}`, path)];
	await untilHeld(before + 2);
	const child = runFax(["ingest", FIXTURE, "--source", "phone", "--sender", sender]);
	await child.exited;
	const exited = performance.now();
	const [straight, throughNginx] = await Promise.all(answers);
	direct.push((straight ?? 0) - exited);
	proxied.push((throughNginx ?? 0) - exited);
	const sent = performance.now();
	await fetch(`${server.url}/api/faxes?limit=100`, { headers: { "user-agent": AGENT } }).then((r) =>
		r.text(),
	);
	pollerYardstick.push(Math.random() * POLL_INTERVAL_SECONDS * 1000 + (performance.now() - sent));
}
await roundTripFax;
const foundWithWait = await withWait;
const pollerRequests = await polled;

// Holding: throughput of the default list without and with 10,000 held.
const defaultList = {
	port,
	paths: ["/api/faxes"],
	clients: Array.from({ length: 1000 }, (_, i) => `10.9.${i >> 8}.${i & 255}`),
};
await runLoad(defaultList, 1, LOAD_CONNECTIONS);
const idleBefore = serverUsage();
await Bun.sleep(1000);
const idleNothingHeld = serverUsage().cpuNs - idleBefore.cpuNs;
const freeLoad = await runLoad(defaultList, LOAD_SECONDS, LOAD_CONNECTIONS);
Bun.gc(true);
const beforeHolding = serverUsage();

/** Opens `count` held requests of distinct senders and client addresses over raw sockets. */
async function holdRaw(count: number, senderOf: (i: number) => string): Promise<Bun.Socket[]> {
	const since = formatUtcSeconds(Math.floor(Date.now() / 1000) + 3600);
	const open = (i: number) => {
		const request = `GET ${listPath(senderOf(i), 30, since)} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${AGENT}\r\nX-Forwarded-For: 10.${i >> 16}.${(i >> 8) & 255}.${i & 255}\r\n\r\n`;
		return Bun.connect({
			hostname: "127.0.0.1",
			port,
			socket: { open: (socket) => void socket.write(request), data() {} },
		});
	};
	const sockets: Bun.Socket[] = [];
	const BATCH = 500;
	for (let i = 0; i < count; i += BATCH)
		sockets.push(
			...(await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => open(i + j)))),
		);
	return sockets;
}

const others = await holdRaw(HELD, (i) => `OTHER ${i}`);
await untilHeld(HELD);
await Bun.sleep(500);
const holding = serverUsage();
const heldKiB = (holding.rssKiB - beforeHolding.rssKiB) / HELD;

/** A new fax with its own waiters: ms from `fax import` exiting to the last waiter's answer, and the server's CPU (ms). */
async function storm(name: string): Promise<{ ms: number; cpuMs: number }> {
	const sender = `STORM ${name}`;
	const since = sinceNow();
	const before = await heldNow();
	const waiters = Array.from({ length: STORM_WAITERS }, (_, i) =>
		fetch(`${server.url}${listPath(sender, 30, since)}`, {
			headers: { "user-agent": AGENT, "x-forwarded-for": `10.200.0.${i}` },
		})
			.then((r) => r.text())
			.then(() => performance.now()),
	);
	await untilHeld(before + STORM_WAITERS);
	await Bun.sleep(200);
	const cpuBefore = serverUsage().cpuNs;
	const exited = await importFax(sender);
	const answered = Math.max(...(await Promise.all(waiters)));
	await Bun.sleep(100);
	return { ms: answered - exited, cpuMs: (serverUsage().cpuNs - cpuBefore) / 1e6 };
}

const stormAmongHeld = await storm("among");
const idleHeldBefore = serverUsage();
await Bun.sleep(1000);
const idleWithHeld = serverUsage().cpuNs - idleHeldBefore.cpuNs;
const heldLoad = await runLoad(defaultList, LOAD_SECONDS, LOAD_CONNECTIONS);
const stillHeld = await heldNow();
for (const socket of others) socket.end();
while ((await heldNow()) > 0) await Bun.sleep(10);
await Bun.sleep(2000);
// A second round with none held, so that a drift of the shared machine shows in the yardstick too.
const freeAfter = await runLoad(defaultList, LOAD_SECONDS, LOAD_CONNECTIONS);
const freePerSecond = (freeLoad.perSecond + freeAfter.perSecond) / 2;
const stormAlone = await storm("alone");

await nginx.stop();
server.child.kill("SIGTERM");
await server.child.exited;
rmSync(dir, { recursive: true, force: true });

// The report.
const mark = (ok: boolean) => (ok ? "✓" : "✗");
const ms = (value: number) => `${value.toFixed(1)} ms`;
const rows = [
	["measure", "value", "yardstick", "ratio / target"],
	[
		`latency direct, p50 / p99 (${FAXES} faxes)`,
		`${ms(quantile(direct, 0.5))} / ${ms(quantile(direct, 0.99))}`,
		`15 s poll: ${ms(quantile(pollerYardstick, 0.5))} / ${ms(quantile(pollerYardstick, 0.99))}`,
		`p99 ${(quantile(pollerYardstick, 0.99) / quantile(direct, 0.99)).toFixed(0)}× shorter; < ${TARGETS.directP99Ms} ms ${mark(quantile(direct, 0.99) < TARGETS.directP99Ms)}`,
	],
	[
		"latency through nginx, p50 / p99",
		`${ms(quantile(proxied, 0.5))} / ${ms(quantile(proxied, 0.99))}`,
		"(the same)",
		`< ${TARGETS.nginxP99Ms} ms ${mark(quantile(proxied, 0.99) < TARGETS.nginxP99Ms)}`,
	],
	[
		`requests per found fax, ${ROUND_TRIP_WAIT_SECONDS} s wait`,
		`fax wait (wait=30): ${withWaitRequests}`,
		`15 s poll: ${pollerRequests}`,
		`${(pollerRequests / withWaitRequests).toFixed(1)}× fewer`,
	],
	[
		`memory per held request (${HELD.toLocaleString("en")} held)`,
		`${heldKiB.toFixed(1)} KiB (RSS ${(beforeHolding.rssKiB / 1024).toFixed(0)} → ${(holding.rssKiB / 1024).toFixed(0)} MiB)`,
		"",
		`< ${TARGETS.heldKiB} KiB ${mark(heldKiB < TARGETS.heldKiB)}`,
	],
	[
		"default list, answers/s while held",
		`${heldLoad.perSecond.toFixed(0)} (p99 ${ms(heldLoad.p99ms)})`,
		`none held, before and after: ${freeLoad.perSecond.toFixed(0)}, ${freeAfter.perSecond.toFixed(0)} (p99 ${ms(freeLoad.p99ms)}, ${ms(freeAfter.p99ms)})`,
		`${(heldLoad.perSecond / freePerSecond).toFixed(2)} ≥ ${TARGETS.throughputRatio} ${mark(heldLoad.perSecond / freePerSecond >= TARGETS.throughputRatio)}`,
	],
	[
		"server CPU idle, per second",
		`${HELD.toLocaleString("en")} held: ${ms(idleWithHeld / 1e6)}`,
		`none held: ${ms(idleNothingHeld / 1e6)}`,
		"",
	],
	[
		`wake-up storm: one fax, ${STORM_WAITERS} own waiters`,
		`among ${HELD.toLocaleString("en")} held: ${ms(stormAmongHeld.ms)}, CPU ${ms(stormAmongHeld.cpuMs)}`,
		`alone: ${ms(stormAlone.ms)}, CPU ${ms(stormAlone.cpuMs)}`,
		`CPU on the others: ${ms(stormAmongHeld.cpuMs - stormAlone.cpuMs)}`,
	],
];
console.log(`bench:wait ${new Date().toISOString().slice(0, 10)}`);
console.log(rows.map((row) => `| ${row.join(" | ")} |`).join("\n"));
console.log(
	`held at the end of the load: ${stillHeld}; statuses: free ${JSON.stringify(freeLoad.statuses)}, held ${JSON.stringify(heldLoad.statuses)}; fax wait: ${foundWithWait.kind}`,
);
