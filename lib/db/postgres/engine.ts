import { copyDatabase } from "../copy-database.ts";
import { DatabaseOpenError, openDatabase } from "../open-database.ts";
import { sqliteEngine } from "../sqlite-engine.ts";
import type { PurgeTurn, StoreEngine } from "../store-engine.ts";
import { type Attempt, UnconfirmedCommitError, type WriteTransactions } from "../write-lock.ts";
import { PostgresDatabase, PostgresError } from "./client.ts";
import { type CommitPosition, POSITION_SQL, PostgresCommitWatch } from "./commit-watch.ts";
import { isPassingPostgresFailure } from "./errors.ts";
import { PostgresProbe } from "./probe.ts";
import { migratePostgres } from "./schema.ts";

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

/** COMMIT, awaited: a cancelled wait for the standby, or a connection lost meanwhile, is an unknown outcome. */
async function commit(db: PostgresDatabase): Promise<void> {
	let cancelled: boolean;
	try {
		({ cancelled } = await db.run("COMMIT", [], { cancelAfterMs: COMMIT_CONFIRM_MS }));
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

/** Write transactions under the advisory lock, each adding one to fax_commits, each on a connection of its own. */
class PostgresTransactions implements WriteTransactions {
	readonly #db: PostgresDatabase;
	readonly timeoutMs: number;

	constructor(db: PostgresDatabase, timeoutMs: number) {
		this.#db = db;
		this.timeoutMs = timeoutMs;
	}

	attempt<T>(work: () => Promise<T>): Promise<Attempt<T>> {
		const db = this.#db;
		return db.session(
			async (session) => {
				await session.exec("BEGIN");
				let open = true;
				try {
					const lock = await db.run("SELECT pg_try_advisory_xact_lock($1) AS ok", [WRITE_LOCK]);
					if (lock.rows[0]?.ok !== true) return { began: false };
					const value = await work();
					await session.exec("UPDATE fax_commits SET n = n + 1");
					// Whatever COMMIT answers, the transaction is over: nothing is left to roll back.
					open = false;
					await commit(db);
					return { began: true, value };
				} finally {
					if (open) await session.exec("ROLLBACK").catch(() => {});
				}
			},
			{ write: true },
		);
	}
}

/** The purge's turn: PURGE_LOCK for the session, or why not. */
async function purgeTurn(db: PostgresDatabase): Promise<PurgeTurn> {
	// A standby takes no lock (it takes no writes either): the primary's purge replays there.
	const { mine } = (
		await db.run("SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_try_advisory_lock($1) END AS mine", [
			PURGE_LOCK,
		])
	).rows[0] as { mine: boolean | null };
	if (mine === null) return "standby";
	if (!mine) return "taken";
	return async () => void (await db.run("SELECT pg_advisory_unlock($1)", [PURGE_LOCK]));
}

/** Where reads go (this node's own database) and where write transactions go (the primary's route); often the same. */
export interface PostgresUrls {
	reads: string;
	writes: string;
}

/** A connection of a database brought to this program's schema. */
async function openMigrated(urls: PostgresUrls): Promise<PostgresDatabase> {
	const db = new PostgresDatabase(urls.reads, { writeUrl: urls.writes });
	try {
		await migratePostgres(db);
		return db;
	} catch (error) {
		await db.close();
		// Refused credentials, a database that does not exist: one line the operator can act on.
		if (error instanceof PostgresError && !isPassingPostgresFailure(error))
			throw new DatabaseOpenError(`cannot use the database (DATABASE_URL): ${error.message}`);
		throw error;
	}
}

async function positionOf(db: PostgresDatabase): Promise<CommitPosition> {
	const row = (await db.run(POSITION_SQL)).rows[0];
	return { count: Number(row?.n ?? 0), standby: row?.standby === true };
}

/**
 * PostgreSQL, on a primary or a hot standby. A change is seen by reading
 * fax_commits: on a standby it moves when the commit has been replayed there,
 * which LISTEN/NOTIFY (refused on a standby) could not tell. Write
 * transactions, the migration and the purge go where `urls.writes` says;
 * everything else reads `urls.reads`. The purge's advisory lock is a session
 * lock, so it lives on a connection of its own.
 */
export async function openPostgresEngine(urls: PostgresUrls, busyTimeoutMs: number): Promise<StoreEngine> {
	const url = urls.reads;
	const db = await openMigrated(urls);
	const purgeSession = new PostgresDatabase(urls.writes, { poolSize: 1 });
	let watch: Promise<PostgresCommitWatch> | undefined;
	let probe: PostgresProbe | undefined;
	const engine: StoreEngine = {
		sql: db,
		transactions: new PostgresTransactions(db, busyTimeoutMs),
		freshness: "commit-row",
		readCommitCount: async () => (await positionOf(db)).count,
		watchCommits() {
			watch ??= positionOf(db).then((first) => new PostgresCommitWatch(url, first));
			return watch;
		},
		purgeTurn: () => purgeTurn(purgeSession),
		probe() {
			probe ??= new PostgresProbe(url);
			return probe.probe();
		},
		snapshot: (work) =>
			db.session(async (session) => {
				await session.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
				let open = true;
				try {
					const result = await work();
					open = false;
					await session.exec("COMMIT");
					return result;
				} finally {
					if (open) await session.exec("ROLLBACK").catch(() => {});
				}
			}),
		async copyTo(path) {
			const target = sqliteEngine(openDatabase(path));
			try {
				await copyDatabase(engine, target);
			} finally {
				await target.close();
			}
		},
		async close() {
			(await watch?.catch(() => undefined))?.close();
			probe?.close();
			await purgeSession.close();
			await db.close();
		},
	};
	return engine;
}
