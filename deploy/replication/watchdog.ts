// Run by replicate.sh: `bun watchdog.ts LITESTREAM replicate -config FILE`.
// Litestream under a watchdog that restarts it when the replica stalls
// (lib/replication/watchdog.ts); settings from the environment replicate.sh
// exported (docs/operations/replication.md, "Backups and restore").
import { createServer } from "node:net";
import { runWatchdog } from "../../lib/replication/watchdog.ts";

function seconds(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback * 1000;
	const value = Number(raw);
	if (!Number.isFinite(value) || value <= 0) {
		console.error(`replication: ${name} must be a number of seconds above 0, not "${raw}"`);
		process.exit(78);
	}
	return value * 1000;
}

/** A loopback port free a moment ago, for Litestream's own metrics, which only the watchdog reads. */
function loopbackPort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}

// process.exit: a drain's timer still pending would hold the process for its 10 s.
const code = await runWatchdog({
	// setpriv (util-linux): Litestream gets SIGKILL when the watchdog dies, even by SIGKILL, so no
	// orphan goes on replicating (and holding the database) beside the next watchdog.
	command: ["setpriv", "--pdeathsig", "KILL", "--", ...process.argv.slice(2)],
	db: process.env.DATABASE_PATH ?? "",
	metricsAddr: process.env.LITESTREAM_METRICS_ADDR || "127.0.0.1:9092",
	childMetricsPort: await loopbackPort(),
	stallRestartMs: seconds("LITESTREAM_STALL_RESTART_SECONDS", 30),
	firstSyncMs: seconds("LITESTREAM_FIRST_SYNC_SECONDS", 300),
	drainMs: seconds("LITESTREAM_STOP_SECONDS", 10),
	log: (line) => console.error(line),
});
process.exit(code);
