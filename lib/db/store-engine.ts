import { Database } from "bun:sqlite";
import type { CommitCounter, FreshnessSource } from "./commit-counter.ts";
import type { CommitWatch } from "./commit-watch.ts";
import type { SqlDatabase } from "./sql.ts";
import type { WriteTransactions } from "./write-lock.ts";

/** The purge's turn: its release, or why this process does not purge now. */
export type PurgeTurn = (() => Promise<void>) | "standby" | "taken";

/** What differs between the engines under the fax store; every statement is in sql. */
export interface StoreEngine {
	readonly sql: SqlDatabase;
	readonly transactions: WriteTransactions;
	/** The commit count as a local read (SQLite); absent where it costs a round trip to a server. */
	readonly commits?: CommitCounter;
	/** Where `commits` is absent: the count as the database reads it now. */
	readCommitCount?(): Promise<number>;
	/** Which way the engine learns of commits (FaxStore.commitSource). */
	readonly freshness: FreshnessSource;
	/**
	 * A server's watch over commits, where reading them costs a round trip to
	 * a database server; absent where `commits` is a local read. Made once,
	 * closed with the engine.
	 */
	watchCommits?(): Promise<CommitWatch>;
	/**
	 * One read of the database that never stops the event loop: resolves when
	 * it answers, rejects (within about a second) when it does not.
	 */
	probe(): Promise<void>;
	/**
	 * The turn to purge, where several processes on several hosts may try at
	 * once: a release function, "standby" on a database that takes no writes,
	 * "taken" while another process purges. Absent: always this process's turn.
	 */
	purgeTurn?(): Promise<PurgeTurn>;
	/** Runs `work` in one read transaction: every read it awaits sees the same committed state. */
	snapshot<T>(work: () => Promise<T>): Promise<T>;
	/** Writes a consistent copy of the whole database to `path`, as a SQLite file. */
	copyTo(path: string): Promise<void>;
	close(): Promise<void>;
}

export function isStoreEngine(value: Database | StoreEngine): value is StoreEngine {
	return !(value instanceof Database);
}
