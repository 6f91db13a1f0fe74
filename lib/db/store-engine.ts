import { Database } from "bun:sqlite";
import type { CommitCounter } from "./commit-counter.ts";
import type { CommitWatch } from "./commit-watch.ts";
import type { SqlDatabase } from "./sql.ts";
import type { WriteTransactions } from "./write-lock.ts";

/** The purge's turn: its release, or why this process does not purge now. */
export type PurgeTurn = (() => void) | "standby" | "taken";

/** What differs between the engines under the fax store; every statement is in sql. */
export interface StoreEngine {
	readonly sql: SqlDatabase;
	readonly transactions: WriteTransactions;
	readonly commits: CommitCounter;
	/**
	 * A server's watch over commits, where reading `commits` costs a round trip
	 * to a database server; absent where `commits` is a local read. Made once,
	 * closed with the engine.
	 */
	watchCommits?(): CommitWatch;
	/**
	 * `length` bytes of a fax's file from byte `offset`, read without waiting
	 * with the event loop stopped; null when the database does not hold it.
	 * Absent where a synchronous read is local (SQLite).
	 */
	readFileSlice?(
		slug: string,
		kind: "pdf" | "thumbnail",
		offset: number,
		length: number,
	): Promise<Uint8Array | null>;
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
	purgeTurn?(): PurgeTurn;
	/** Runs `work` in one read transaction: every read in it sees the same committed state. */
	snapshot<T>(work: () => T): T;
	/** Writes a consistent copy of the whole database to `path`, as a SQLite file. */
	copyTo(path: string): void;
	close(): void;
}

export function isStoreEngine(value: Database | StoreEngine): value is StoreEngine {
	return !(value instanceof Database);
}
