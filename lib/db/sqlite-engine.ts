import type { Database } from "bun:sqlite";
import { type CommitSource, commitCounter } from "./commit-counter.ts";
import { sqliteSql } from "./sql.ts";
import type { StoreEngine } from "./store-engine.ts";
import { SqliteTransactions } from "./write-lock.ts";

/** bun:sqlite: a file in WAL mode (open-database.ts). */
export function sqliteEngine(db: Database, options: { commitSource?: CommitSource } = {}): StoreEngine {
	const sql = sqliteSql(db);
	const ping = sql.prepare("SELECT 1 FROM faxes LIMIT 1");
	const commits = commitCounter(db, options.commitSource);
	return {
		sql,
		transactions: new SqliteTransactions(db, sql),
		commits,
		freshness: commits.source,
		snapshot: (work) =>
			sql.session(async (session) => {
				await session.exec("BEGIN DEFERRED");
				try {
					return await work();
				} finally {
					if (db.inTransaction) await session.exec("COMMIT");
				}
			}),
		// VACUUM INTO: one read transaction, so writers carry on meanwhile; no WAL.
		copyTo: async (path) =>
			void (await sql.session(async () => void db.query("VACUUM INTO $path").run({ path }))),
		// A local file: a read answers at once or fails at once.
		probe: async () => void (await ping.get()),
		close: async () => db.close(),
	};
}
