import type { FaxStore } from "../db/index.ts";
import type { Logger } from "../log/index.ts";
import { errorMessage } from "../util/index.ts";
import { purgeExpired } from "./purge.ts";

/**
 * Runs the purge at start and then every `intervalSeconds`, so a plain deployment
 * never keeps a fax past 30 days, on every instance of every host: a run on a
 * standby, or while another process purges, leaves the database to it
 * (purgeExpired). A failed run (a busy or full disk) is logged and retried at
 * the next tick, never fatal. Returns the function that stops it.
 */
export function schedulePurge(
	store: FaxStore,
	storageDir: string,
	intervalSeconds: number,
	options: {
		clock: () => number;
		logger: Logger;
		/** The database's condition: a failure of its own (read-only, away) is told there once, as is its end. */
		health?: { failed(error: unknown): boolean; wrote(): void };
	},
): () => void {
	if (intervalSeconds === 0) return () => {};
	let running = false;
	const run = async () => {
		if (running) return;
		running = true;
		try {
			const outcome = await purgeExpired(store, storageDir, Math.floor(options.clock() / 1000));
			if ("skipped" in outcome) return;
			options.health?.wrote();
			if (outcome.removed.length > 0)
				options.logger.info({ removed: outcome.removed.length }, "purge: removed faxes past retention");
		} catch (error) {
			if (options.health?.failed(error)) return;
			options.logger.error(
				{ err: errorMessage(error), retry_in_s: intervalSeconds },
				"purge failed; retrying at the next interval",
			);
		} finally {
			running = false;
		}
	};
	const timer = setInterval(run, intervalSeconds * 1000);
	queueMicrotask(run);
	return () => clearInterval(timer);
}
