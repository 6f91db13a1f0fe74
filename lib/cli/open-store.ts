import type { Config } from "../config.ts";
import { FaxStore, openEngine, type StoreLocation } from "../db/index.ts";

/**
 * Where a command keeps its store. A command writes, or reads for a writer:
 * on a cluster host it asks the primary's route (DATABASE_WRITE_URL) for
 * everything, so that what it checks before it writes (a receipt, a slug) is
 * what the write then meets, and it works while the host's own node is down.
 * The server reads its own node and writes through the same route.
 */
export function commandLocation(config: Config): StoreLocation {
	return { ...config, databaseUrl: config.databaseWriteUrl ?? config.databaseUrl, databaseWriteUrl: null };
}

/** Runs `work` with the configured store and storage directory, closing the database after. */
export async function withStore<T>(
	config: Config,
	work: (store: FaxStore, storageDir: string) => Promise<T> | T,
): Promise<T> {
	const store = new FaxStore(await openEngine(commandLocation(config)));
	try {
		return await work(store, config.storageDir);
	} finally {
		await store.close();
	}
}
