import type { Database } from "bun:sqlite";
import { type CommitSource, commitCounter } from "./commit-counter.ts";
import { sqliteSql } from "./sql.ts";
import type { StoreEngine } from "./store-engine.ts";
import { SqliteTransactions } from "./write-lock.ts";

/** bun:sqlite: a file in WAL mode (open-database.ts). */
export function sqliteEngine(db: Database, options: { commitSource?: CommitSource } = {}): StoreEngine {
	const ping = db.prepare("SELECT 1 FROM faxes LIMIT 1");
	return {
		sql: sqliteSql(db),
		transactions: new SqliteTransactions(db),
		commits: commitCounter(db, options.commitSource),
		snapshot: (work) => db.transaction(work).deferred(),
		// VACUUM INTO: one read transaction, so writers carry on meanwhile; no WAL.
		copyTo: (path) => void db.query("VACUUM INTO $path").run({ path }),
		// A local file: a read answers at once or fails at once.
		probe: async () => void ping.get(),
		close: () => db.close(),
	};
}
