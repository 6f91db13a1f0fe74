import { copyDatabase } from "../copy-database.ts";
import { openDatabase } from "../open-database.ts";
import { sqliteEngine } from "../sqlite-engine.ts";
import type { StoreEngine } from "../store-engine.ts";
import type { WriteTransactions } from "../write-lock.ts";
import { type CommitPosition, POSITION_SQL, PostgresCommitWatch } from "./commit-watch.ts";
import { FileReader } from "./file-reader.ts";
import { migratePostgres } from "./schema.ts";
import { PostgresDatabase, PostgresError } from "./sync-client.ts";

// The advisory lock every write transaction holds: writers take turns, as on
// SQLite, so a check and the write after it (a receipt, a slug) cannot race.
const WRITE_LOCK = 7_041_002;

/** Write transactions under the advisory lock, each adding one to fax_commits. */
class PostgresTransactions implements WriteTransactions {
	readonly #db: PostgresDatabase;
	readonly timeoutMs: number;
	#open = false;

	constructor(db: PostgresDatabase, timeoutMs: number) {
		this.#db = db;
		this.timeoutMs = timeoutMs;
	}

	tryBegin(): boolean {
		this.#db.exec("BEGIN");
		this.#open = true;
		if (this.#db.run("SELECT pg_try_advisory_xact_lock($1) AS ok", [WRITE_LOCK]).rows[0]?.ok === true) {
			return true;
		}
		this.rollback();
		return false;
	}

	commit(): void {
		this.#db.exec("UPDATE fax_commits SET n = n + 1");
		this.#db.exec("COMMIT");
		this.#open = false;
	}

	rollback(): void {
		if (!this.#open) return;
		this.#open = false;
		this.#db.exec("ROLLBACK");
	}
}

/**
 * PostgreSQL, on a primary or a hot standby. A change is seen by reading
 * fax_commits: on a standby it moves when the commit has been replayed there,
 * which LISTEN/NOTIFY (refused on a standby) could not tell.
 */
export function openPostgresEngine(url: string, busyTimeoutMs: number): StoreEngine {
	const db = new PostgresDatabase(url);
	try {
		migratePostgres(db);
	} catch (error) {
		db.close();
		throw error;
	}
	const commits = db.prepare<{ n: number }>("SELECT n FROM fax_commits");
	let watch: PostgresCommitWatch | undefined;
	let files: FileReader | undefined;
	const position = (): CommitPosition => {
		const row = db.run(POSITION_SQL).rows[0];
		return { count: Number(row?.n ?? 0), standby: row?.standby === true };
	};
	const engine: StoreEngine = {
		sql: db,
		transactions: new PostgresTransactions(db, busyTimeoutMs),
		commits: { source: "commit-row", count: () => commits.get()?.n ?? 0 },
		watchCommits() {
			watch ??= new PostgresCommitWatch(url, position());
			return watch;
		},
		readFileSlice(slug, kind, offset, length) {
			files ??= new FileReader(url);
			return files.slice(slug, kind, offset, length);
		},
		snapshot(work) {
			db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
			try {
				const result = work();
				db.exec("COMMIT");
				return result;
			} catch (error) {
				if (!(error instanceof PostgresError && error.code.startsWith("08"))) db.exec("ROLLBACK");
				throw error;
			}
		},
		copyTo(path) {
			const target = sqliteEngine(openDatabase(path));
			try {
				copyDatabase(engine, target);
			} finally {
				target.close();
			}
		},
		close() {
			watch?.close();
			files?.close();
			db.close();
		},
	};
	return engine;
}
