import { copyDatabase } from "../copy-database.ts";
import { DatabaseOpenError, openDatabase } from "../open-database.ts";
import { sqliteEngine } from "../sqlite-engine.ts";
import type { PurgeTurn, StoreEngine } from "../store-engine.ts";
import { UnconfirmedCommitError, type WriteTransactions } from "../write-lock.ts";
import { type CommitPosition, POSITION_SQL, PostgresCommitWatch } from "./commit-watch.ts";
import { isPassingPostgresFailure } from "./errors.ts";
import { FileReader } from "./file-reader.ts";
import { PostgresProbe } from "./probe.ts";
import { migratePostgres } from "./schema.ts";
import { PostgresDatabase, PostgresError } from "./sync-client.ts";

// The longest a COMMIT waits for a synchronous standby to confirm it. Past it
// the wait is cancelled (the commit stays on the primary, its locks are
// released) and the write fails, so a writer learns within seconds that no
// standby is there instead of waiting as long as the standbys are away.
export const COMMIT_CONFIRM_MS = 10_000;

// The advisory lock of the purge, held by one process of the cluster at a time.
const PURGE_LOCK = 7_041_003;

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
		// Whatever COMMIT answers, the transaction is over: nothing is left to roll back.
		this.#open = false;
		let cancelled: boolean;
		try {
			({ cancelled } = this.#db.run("COMMIT", [], { cancelAfterMs: COMMIT_CONFIRM_MS }));
		} catch (error) {
			if (!isPassingPostgresFailure(error)) throw error;
			throw new UnconfirmedCommitError(`the connection failed during COMMIT: ${(error as Error).message}`);
		}
		// A COMMIT cancelled while it waits for a standby is kept on the primary, and so are its locks no longer.
		if (cancelled) {
			throw new UnconfirmedCommitError(
				`no standby confirmed the commit within ${COMMIT_CONFIRM_MS / 1000} s (synchronous replication); ` +
					"it is kept on the primary and listed once a standby has it",
			);
		}
	}

	rollback(): void {
		if (!this.#open) return;
		this.#open = false;
		this.#db.exec("ROLLBACK");
	}
}

/** The purge's turn: PURGE_LOCK for the session, or why not. */
function purgeTurn(db: PostgresDatabase): PurgeTurn {
	// A standby takes no lock (it takes no writes either): the primary's purge replays there.
	const { mine } = db.run(
		"SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_try_advisory_lock($1) END AS mine",
		[PURGE_LOCK],
	).rows[0] as { mine: boolean | null };
	if (mine === null) return "standby";
	if (!mine) return "taken";
	return () => void db.run("SELECT pg_advisory_unlock($1)", [PURGE_LOCK]);
}

/** The connection of a database brought to this program's schema. */
function openMigrated(url: string): PostgresDatabase {
	const db = new PostgresDatabase(url);
	try {
		migratePostgres(db);
		return db;
	} catch (error) {
		db.close();
		// Refused credentials, a database that does not exist: one line the operator can act on.
		if (error instanceof PostgresError && !isPassingPostgresFailure(error))
			throw new DatabaseOpenError(`cannot use the database (DATABASE_URL): ${error.message}`);
		throw error;
	}
}

/**
 * PostgreSQL, on a primary or a hot standby. A change is seen by reading
 * fax_commits: on a standby it moves when the commit has been replayed there,
 * which LISTEN/NOTIFY (refused on a standby) could not tell.
 */
export function openPostgresEngine(url: string, busyTimeoutMs: number): StoreEngine {
	const db = openMigrated(url);
	const commits = db.prepare<{ n: number }>("SELECT n FROM fax_commits");
	let watch: PostgresCommitWatch | undefined;
	let files: FileReader | undefined;
	let probe: PostgresProbe | undefined;
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
		purgeTurn: () => purgeTurn(db),
		probe() {
			probe ??= new PostgresProbe(url);
			return probe.probe();
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
			probe?.close();
			db.close();
		},
	};
	return engine;
}
