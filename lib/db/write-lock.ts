import type { Database, Statement } from "bun:sqlite";
import type { SqlDatabase } from "./sql.ts";

/**
 * Another writer held the database for longer than this connection's busy
 * timeout (BUSY_TIMEOUT_MS): nothing of the write happened.
 */
export class DatabaseBusyError extends Error {
	constructor(waitedMs: number) {
		super(`the database stayed locked by another writer for ${waitedMs / 1000} s (BUSY_TIMEOUT_MS)`);
	}
}

/**
 * A commit whose outcome this writer cannot know: PostgreSQL made it on the
 * primary, but no synchronous standby confirmed it in time, or the connection
 * was lost during COMMIT. It may yet be listed (once a standby has it), so
 * nothing it refers to (a fax's files) may be removed; the receiver hands the
 * fax over again, and its receipt key lists it once.
 */
export class UnconfirmedCommitError extends Error {}

/** A long write holds the lock this long at most per transaction... */
export const BATCH_MS = 200;
/** ...and then leaves it free this long, so writers waiting for it get in. */
export const GAP_MS = 20;
// Waiting writers try again this often: well inside a gap, so none is missed.
const RETRY_MIN_MS = 2;
const RETRY_SPREAD_MS = 3;

/** A write that runs as several short transactions instead of one long one. */
export interface BatchedWrite {
	/** Runs first in each transaction; may throw to stop the write. */
	open?(): Promise<void>;
	/** One small piece of work; resolves to false once nothing is left. */
	step(): Promise<boolean>;
	/** Runs after each commit. */
	committed?(): void;
}

function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** What an attempt at a write transaction came to. */
export type Attempt<T> = { began: true; value: T } | { began: false };

/** How an engine runs a write transaction for the WriteLock. */
export interface WriteTransactions {
	/** How long a writer waits for another, in milliseconds. */
	readonly timeoutMs: number;
	/**
	 * Runs `work` in a write transaction holding the engine's write lock, and
	 * commits it; `began: false` when another writer holds the lock (nothing
	 * ran). A failure of `work` or of the commit rolls back what it can and
	 * rejects.
	 */
	attempt<T>(work: () => Promise<T>): Promise<Attempt<T>>;
}

/**
 * SQLite's write transactions: the lock is taken up front (BEGIN IMMEDIATE,
 * so a transaction that reads before it writes never fails on a stale
 * snapshot), tried without SQLite's own sleeping wait. SQLite's own wait
 * sleeps up to 100 ms between tries and would miss the short gaps a long
 * write leaves; it still covers reads, which in WAL mode wait only in rare
 * moments (recovery, the last connection's checkpoint). Each attempt is a
 * session of the connection (sql.ts): nothing else of this process reads
 * its rows before they are committed.
 */
export class SqliteTransactions implements WriteTransactions {
	readonly #db: Database;
	readonly #sql: SqlDatabase;
	readonly timeoutMs: number;
	readonly #begin: Statement;
	readonly #commit: Statement;
	readonly #rollback: Statement;

	constructor(db: Database, sql: SqlDatabase) {
		this.#db = db;
		this.#sql = sql;
		this.timeoutMs = (db.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout;
		this.#begin = db.prepare("BEGIN IMMEDIATE");
		this.#commit = db.prepare("COMMIT");
		this.#rollback = db.prepare("ROLLBACK");
	}

	#tryBegin(): boolean {
		// A prepared PRAGMA statement keeps the value of its first run: exec it.
		this.#db.exec("PRAGMA busy_timeout = 0");
		try {
			this.#begin.run();
			return true;
		} catch (error) {
			if (isBusy(error)) return false;
			throw error;
		} finally {
			this.#db.exec(`PRAGMA busy_timeout = ${this.timeoutMs}`);
		}
	}

	attempt<T>(work: () => Promise<T>): Promise<Attempt<T>> {
		return this.#sql.session(async () => {
			if (!this.#tryBegin()) return { began: false };
			try {
				const value = await work();
				this.#commit.run();
				return { began: true, value };
			} catch (error) {
				if (this.#db.inTransaction) this.#rollback.run();
				throw error;
			}
		});
	}
}

/**
 * Write transactions that wait for a busy database without blocking the
 * event loop: the engine's lock is tried, and tried again every few
 * milliseconds until its busy timeout has passed.
 */
export class WriteLock {
	readonly #transactions: WriteTransactions;
	/** Transactions committed through this lock: a connection's data_version does not count its own. */
	commits = 0;
	/**
	 * The longest any of them took, from BEGIN to the end of COMMIT: at least
	 * the time it held the lock, as a COMMIT may go on to checkpoint the WAL.
	 */
	longestTransactionMs = 0;

	constructor(transactions: WriteTransactions) {
		this.#transactions = transactions;
	}

	/** Runs `work` in one write transaction, all of it or none, once the lock is free. */
	async run<T>(work: () => T | Promise<T>): Promise<T> {
		const transactions = this.#transactions;
		const deadline = performance.now() + transactions.timeoutMs;
		for (;;) {
			let began = 0;
			const attempt = await transactions.attempt(async () => {
				began = performance.now();
				return work();
			});
			if (attempt.began) {
				this.commits++;
				this.longestTransactionMs = Math.max(this.longestTransactionMs, performance.now() - began);
				return attempt.value;
			}
			if (performance.now() >= deadline) throw new DatabaseBusyError(transactions.timeoutMs);
			await Bun.sleep(RETRY_MIN_MS + Math.random() * RETRY_SPREAD_MS);
		}
	}

	/**
	 * Runs a long write as transactions of about BATCH_MS each with a GAP_MS
	 * pause between them, so no writer waits longer than one batch. Each
	 * transaction is whole; the write as a whole is not, unless the steps make
	 * it so (a purge may stop half-way; an import hides its rows until done).
	 */
	async runInBatches(write: BatchedWrite): Promise<void> {
		let more = true;
		while (more) {
			more = await this.run(async () => {
				await write.open?.();
				const end = performance.now() + BATCH_MS;
				let left = await write.step();
				while (left && performance.now() < end) left = await write.step();
				return left;
			});
			write.committed?.();
			if (more) await Bun.sleep(GAP_MS);
		}
	}
}
