import type { FaxStore } from "../db/index.ts";
import { errorMessage } from "../util/index.ts";
import { purgeExpired } from "./purge.ts";

/**
 * Runs the purge at start and then every `intervalSeconds`, so a plain deployment
 * never keeps a fax past 30 days; a failed run (a busy or full disk) is logged
 * and retried at the next tick, never fatal. Returns the function that stops it.
 */
export function schedulePurge(
	store: FaxStore,
	storageDir: string,
	intervalSeconds: number,
	options: { clock: () => number; log: (line: string) => void },
): () => void {
	if (intervalSeconds === 0) return () => {};
	let running = false;
	const run = async () => {
		if (running) return;
		running = true;
		try {
			const slugs = await purgeExpired(store, storageDir, Math.floor(options.clock() / 1000));
			if (slugs.length > 0) options.log(`purge: removed ${slugs.length} faxes past retention`);
		} catch (error) {
			options.log(`purge failed, retrying in ${intervalSeconds} s: ${errorMessage(error)}`);
		} finally {
			running = false;
		}
	};
	const timer = setInterval(run, intervalSeconds * 1000);
	queueMicrotask(run);
	return () => clearInterval(timer);
}
