import type { CommitSource } from "./commit-counter.ts";
import { openDatabase } from "./open-database.ts";
import { sqliteEngine } from "./sqlite-engine.ts";
import type { StoreEngine } from "./store-engine.ts";

/** Where the faxes are kept: DATABASE_URL (PostgreSQL) when set, else the SQLite file at DATABASE_PATH. */
export interface StoreLocation {
	databasePath: string;
	databaseUrl: string | null;
	/** Where write transactions go when they do not go to databaseUrl (PostgreSQL only). */
	databaseWriteUrl?: string | null;
	busyTimeoutMs: number;
	commitSource?: CommitSource;
}

/** Opens the configured engine, with the schema in place. */
export async function openEngine(location: StoreLocation): Promise<StoreEngine> {
	if (location.databaseUrl !== null) {
		const { openPostgresEngine } = await import("./postgres/engine.ts");
		return await openPostgresEngine(
			{ reads: location.databaseUrl, writes: location.databaseWriteUrl ?? location.databaseUrl },
			location.busyTimeoutMs,
		);
	}
	const db = openDatabase(location.databasePath, { busyTimeoutMs: location.busyTimeoutMs });
	return sqliteEngine(db, { commitSource: location.commitSource });
}
