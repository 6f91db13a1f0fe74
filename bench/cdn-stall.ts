/**
 * `bun run bench:cdn`: API latency while clients hold downloads of a large
 * PDF open without reading them. In turn, BENCH_ROUNDS times: the API alone
 * (the yardstick), then the API with BENCH_STALLED downloads of a 31 MB PDF
 * open, each stopped after its answer's head. Prints requests per second and
 * p99 of both and the server's memory; the bound: p99 with the downloads open
 * stays under 20 ms.
 * Options (environment): BENCH_STALLED (500), BENCH_SECONDS (5),
 * BENCH_CONNECTIONS (8), BENCH_ROUNDS (3).
 */
import { readFileSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../lib/db/index.ts";
import { importFaxes } from "../lib/import/index.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { type LoadResult, runLoad } from "./load.ts";

const STALLED = Number(process.env.BENCH_STALLED ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PDF_BYTES = 31 * 1024 * 1024;
const BOUND_MS = 20;
const SLUG = "fax_BenchLarge1";

function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Seconds of CPU the process has used. */
function cpuSeconds(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits until the server uses less than a tenth of a core; the seconds that took. */
async function untilIdle(pid: number): Promise<number> {
	const began = performance.now();
	for (;;) {
		const before = cpuSeconds(pid);
		await Bun.sleep(500);
		if (cpuSeconds(pid) - before < 0.05 || performance.now() - began > 60_000)
			return (performance.now() - began) / 1000;
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Opens a download that reads its answer's head and then nothing more; resolves with its status. */
function stalledDownload(port: number, sockets: Socket[]): Promise<number> {
	const socket = new Socket();
	sockets.push(socket);
	return new Promise((resolve) => {
		let head = "";
		socket.on("error", () => resolve(0));
		socket.on("data", (chunk: Buffer) => {
			head += chunk.toString("latin1");
			if (!head.includes("\r\n\r\n")) return;
			socket.pause();
			socket.removeAllListeners("data");
			resolve(Number(head.slice(9, 12)));
		});
		socket.connect(port, "127.0.0.1", () => {
			socket.write(`GET /cdn/faxes/${SLUG}.pdf HTTP/1.1\r\nHost: bench\r\nUser-Agent: stalled/1.0\r\n\r\n`);
		});
	});
}

function line(label: string, result: LoadResult): string {
	return `  ${label}: ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50ms.toFixed(2)} ms  p99 ${result.p99ms.toFixed(2)} ms`;
}

const dir = join(tmpdir(), `testfax-bench-cdn-${process.pid}`);
const env = {
	DATABASE_PATH: join(dir, "cdn.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
	LOG_LEVEL: "silent",
	RATE_LIMIT_PER_MINUTE: "1000000000",
	// The downloads stay open for the whole measurement; the default would cut them after 30 s.
	IDLE_TIMEOUT_SECONDS: "255",
	CDN_MAX_DOWNLOADS: String(Math.max(512, STALLED)),
};
const db = openDatabase(env.DATABASE_PATH);
const now = Math.floor(Date.now() / 1000);
const receivedAt = `${new Date((now - 60) * 1000).toISOString().slice(0, 19)}Z`;
const imported = await importFaxes(
	new FaxStore(db),
	[
		{
			slug: SLUG,
			source: "phone",
			sender: null,
			received_at: receivedAt,
			page_count: 1,
			file_size: PDF_BYTES,
		},
	],
	now,
);
db.close();
if (!imported.ok) throw new Error(imported.errors.join("; "));
await Bun.write(join(env.STORAGE_DIR, "faxes", `${SLUG}.pdf`), new Uint8Array(PDF_BYTES).fill(0x25));

const server = await startServerProcess(env);
try {
	const port = Number(new URL(server.url).port);
	const api = () => runLoad({ port, paths: ["/api/faxes"] }, SECONDS, CONNECTIONS);
	console.log(
		`API (${CONNECTIONS} connections, ${SECONDS} s) alone and with ${STALLED} stalled downloads of a ${PDF_BYTES / 2 ** 20} MB PDF, ${ROUNDS} rounds`,
	);
	await api();
	const alone: LoadResult[] = [];
	const stalled: LoadResult[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		const a = await api();
		alone.push(a);
		console.log(line(`round ${round + 1}, API alone         `, a));

		const sockets: Socket[] = [];
		const statuses = await Promise.all(Array.from({ length: STALLED }, () => stalledDownload(port, sockets)));
		const open = statuses.filter((status) => status === 200).length;
		// Each download first fills the socket buffers; measure once that is done.
		const filling = await untilIdle(server.child.pid);
		const rss = rssMiB(server.child.pid);
		const b = await api();
		stalled.push(b);
		console.log(
			`${line(`round ${round + 1}, ${open} downloads open`, b)}  server RSS ${rss.toFixed(0)} MiB, idle again ${filling.toFixed(1)} s after they opened`,
		);
		for (const socket of sockets) socket.destroy();
		await Bun.sleep(500);
	}
	const p99Alone = median(alone.map((r) => r.p99ms));
	const p99Stalled = median(stalled.map((r) => r.p99ms));
	console.log(
		`  API p99 (median of ${ROUNDS}): ${p99Stalled.toFixed(2)} ms with ${STALLED} stalled downloads, ${p99Alone.toFixed(2)} ms without (bound ${BOUND_MS} ms: ${p99Stalled < BOUND_MS ? "within" : "BROKEN"})`,
	);
	console.log(
		`  API throughput with the downloads against without: ${(median(stalled.map((r) => r.perSecond)) / median(alone.map((r) => r.perSecond))).toFixed(2)}×`,
	);
} finally {
	server.child.kill("SIGTERM");
	await server.child.exited;
	rmSync(dir, { recursive: true, force: true });
}
