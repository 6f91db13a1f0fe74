import type { Config } from "../config.ts";
import { FaxStore, openDatabase } from "../db/index.ts";

/** Runs `work` with the configured store and storage directory, closing the database after. */
export async function withStore<T>(
	config: Config,
	work: (store: FaxStore, storageDir: string) => Promise<T> | T,
): Promise<T> {
	const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
	try {
		return await work(new FaxStore(db), config.storageDir);
	} finally {
		db.close();
	}
}
