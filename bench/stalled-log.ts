/**
 * `bun run bench:log`: answers per second while standard output goes to a
 * reader that has stopped reading (a FIFO nobody reads, as a stuck log
 * collector leaves it), against the same server whose reader keeps up (a
 * FIFO drained by `cat` into /dev/null; the yardstick). Rounds alternate
 * between the two, so both see the same machine. Before the non-blocking
 * log output, the stalled server stopped answering after about 64 KB of
 * access lines (0 answers/s). Target: the stalled server keeps at least
 * 0.8× the free one's throughput.
 * Options (environment): BENCH_SECONDS (3, each round), BENCH_CONNECTIONS (32).
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess } from "../testkit/server-process.ts";
import { runLoad } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = 4;
const TARGET = 0.8;
const dir = mkdtempSync(join(tmpdir(), "testfax-bench-log-"));

/** A FIFO for a server's standard output; `drain` starts a reader that keeps up. */
function fifo(name: string, drain: boolean) {
	const path = join(dir, name);
	Bun.spawnSync(["mkfifo", path]);
	const reader = drain
		? Bun.spawn(["sh", "-c", `exec cat "${path}" > /dev/null`])
		: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	const writeFd = openSync(path, constants.O_WRONLY);
	return { writeFd, reader };
}

async function server(name: string, drain: boolean) {
	const pipe = fifo(`${name}.fifo`, drain);
	const started = await startServerProcess(
		{
			DATABASE_PATH: join(dir, `${name}.sqlite`),
			STORAGE_DIR: join(dir, "storage"),
			RATE_LIMIT_PER_MINUTE: "1000000000",
		},
		{ stdout: pipe.writeFd },
	);
	closeSync(pipe.writeFd);
	return { ...started, pipe, port: Number(new URL(started.url).port) };
}

const stalled = await server("stalled", false);
const free = await server("free", true);
try {
	const totals = { stalled: 0, free: 0 };
	for (let round = 0; round < ROUNDS; round++) {
		for (const [name, target] of [
			["stalled", stalled],
			["free", free],
		] as const) {
			const result = await runLoad({ port: target.port, paths: ["/api/faxes"] }, SECONDS, CONNECTIONS);
			if (Object.keys(result.statuses).some((status) => status !== "200")) {
				throw new Error(`${name}: answers other than 200: ${JSON.stringify(result.statuses)}`);
			}
			totals[name] += result.perSecond;
			console.log(
				`round ${round + 1} ${name}: ${Math.round(result.perSecond)} answers/s, p99 ${result.p99ms.toFixed(2)} ms`,
			);
		}
	}
	const metrics = await (await fetch(`${stalled.adminUrl}/metrics`)).text();
	const dropped = /^testfax_log_lines_dropped_total (\d+)/m.exec(metrics)?.[1] ?? "?";
	const ratio = totals.stalled / totals.free;
	console.log(
		`stalled reader / free reader: ${ratio.toFixed(2)} (target ${TARGET}) ${ratio >= TARGET ? "✓" : "✗"}; ` +
			`${Math.round(totals.stalled / ROUNDS)} against ${Math.round(totals.free / ROUNDS)} answers/s; ` +
			`${dropped} access lines dropped by the stalled one`,
	);
} finally {
	for (const target of [stalled, free]) {
		target.child.kill("SIGKILL");
		if (typeof target.pipe.reader === "number") closeSync(target.pipe.reader);
		else target.pipe.reader.kill();
	}
	rmSync(dir, { recursive: true, force: true });
}
