import { forgetGeneration, localPosition, replicaPosition } from "./litestream-metrics.ts";
import { StallClock } from "./stall-clock.ts";

/**
 * Runs `litestream replicate` and restarts it when its replica stops
 * confirming what the database holds: Litestream 0.3.13 can block for good in
 * an SFTP upload without an error (docs/decisions.md, "Workarounds"). Serves
 * Litestream's metrics with the stall added at `metricsAddr`, so Prometheus
 * scrapes one address whichever Litestream process runs.
 */
export interface WatchdogOptions {
	/** The Litestream binary and its arguments (`replicate -config FILE`). */
	command: string[];
	/** The database's path, the `db` label of the watchdog's own series. */
	db: string;
	/** host:port of the metrics listener (LITESTREAM_METRICS_ADDR). */
	metricsAddr: string;
	/** A loopback port for the Litestream process's own metrics. */
	childMetricsPort: number;
	stallRestartMs: number;
	firstSyncMs: number;
	drainMs: number;
	log: (line: string) => void;
}

const TICK_MS = 1000;

export function listenAddress(addr: string): { hostname: string; port: number } {
	const colon = addr.lastIndexOf(":");
	const host = addr.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
	const port = Number(addr.slice(colon + 1));
	if (colon < 0 || !Number.isInteger(port) || port <= 0) throw new Error(`not a host:port: ${addr}`);
	return { hostname: host === "" ? "0.0.0.0" : host, port };
}

/** SIGTERM (Litestream uploads what is left), then SIGKILL after `drainMs`: a stuck 0.3.13 never exits on its own. */
export async function stopWithin(child: Bun.Subprocess, drainMs: number): Promise<"exited" | "killed"> {
	child.kill("SIGTERM");
	const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(drainMs).then(() => false)]);
	if (exited) return "exited";
	child.kill("SIGKILL");
	await child.exited;
	return "killed";
}

function ownMetrics(db: string, stallSeconds: number, restarts: number): string {
	const label = `{db="${db.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"}`;
	return [
		"# HELP testfax_replication_stall_seconds Seconds since the replica last held every position the database had reached (0: it holds them now).",
		"# TYPE testfax_replication_stall_seconds gauge",
		`testfax_replication_stall_seconds${label} ${stallSeconds.toFixed(1)}`,
		"# HELP testfax_replication_restarts_total Litestream processes the watchdog stopped because their replica had stalled.",
		"# TYPE testfax_replication_restarts_total counter",
		`testfax_replication_restarts_total${label} ${restarts}`,
		"",
	].join("\n");
}

async function childMetrics(port: number): Promise<string> {
	return fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(TICK_MS * 2) }).then(
		(response) => (response.ok ? response.text() : ""),
		() => "",
	);
}

function untilSignal(): Promise<void> {
	return new Promise((resolve) => {
		for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve());
	});
}

/** Runs until SIGTERM/SIGINT (exit 0) or until Litestream exits on its own (its exit code, for the supervisor). */
export async function runWatchdog(options: WatchdogOptions): Promise<number> {
	const env = { ...process.env, LITESTREAM_METRICS_ADDR: `127.0.0.1:${options.childMetricsPort}` };
	const start = () =>
		Bun.spawn(options.command, { env, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
	let child = start();
	const clock = new StallClock(Date.now());
	let restarts = 0;
	let latest = "";
	let generation: string | undefined;
	const server = Bun.serve({
		...listenAddress(options.metricsAddr),
		fetch(request) {
			if (new URL(request.url).pathname !== "/metrics") return new Response("not found\n", { status: 404 });
			const own = ownMetrics(options.db, clock.stallSeconds(Date.now()), restarts);
			return new Response(latest + own, { headers: { "Content-Type": "text/plain; version=0.0.4" } });
		},
	});
	let signalled = false;
	const signal = untilSignal().then(() => {
		signalled = true;
	});
	try {
		while (!signalled) {
			await Promise.race([Bun.sleep(TICK_MS), signal, child.exited]);
			if (signalled) break;
			if (child.exitCode !== null || child.signalCode !== null) {
				options.log(
					`replication watchdog: litestream exited (${child.exitCode ?? child.signalCode}); stopping`,
				);
				return child.exitCode ?? 1;
			}
			latest = await childMetrics(options.childMetricsPort);
			const local = await localPosition(options.db);
			if (local && local.generation !== generation) {
				// Litestream began a new generation: its positions start again.
				if (generation !== undefined) clock.restart(Date.now());
				generation = local.generation;
			}
			if (local) clock.observe({ local: local.position, replica: replicaPosition(latest) }, Date.now());
			if (!clock.stuck(Date.now(), options.stallRestartMs, options.firstSyncMs)) continue;
			const stall = clock.stallSeconds(Date.now()).toFixed(0);
			const how = await stopWithin(child, options.drainMs);
			await forgetGeneration(options.db);
			restarts++;
			options.log(
				`replication watchdog: the replica confirmed nothing new for ${stall} s; litestream ${how}, starting it again`,
			);
			latest = "";
			clock.restart(Date.now());
			child = start();
		}
		const how = await stopWithin(child, options.drainMs);
		options.log(`replication watchdog: stopped; litestream ${how}`);
		return 0;
	} finally {
		server.stop(true);
	}
}
