import type { Config } from "../config.ts";
import { FaxStore, openEngine } from "../db/index.ts";

/** Runs `work` with the configured store and storage directory, closing the database after. */
export async function withStore<T>(
	config: Config,
	work: (store: FaxStore, storageDir: string) => Promise<T> | T,
): Promise<T> {
	const store = new FaxStore(await openEngine(config));
	try {
		return await work(store, config.storageDir);
	} finally {
		await store.close();
	}
}
