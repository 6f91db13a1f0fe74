/**
 * How a server learns, before answering from memory, of what other processes
 * committed: the fax store's commit count, read so that a request never costs
 * a blocking round trip to a database server.
 */
export interface CommitWatch {
	/** Differs from its last value whenever a commit was seen since; no I/O beyond a local read. */
	count(): number;
	/**
	 * Null when count() already holds every commit a request arriving now must
	 * see; else a promise that resolves once it does (and rejects when the
	 * database cannot tell).
	 */
	settle(): Promise<void> | null;
	/**
	 * Told that the database showed a commit the count has not: the next
	 * settle() reads the count anew, so that a list never lags a lookup the
	 * same instance answered from the database.
	 */
	behind(): void;
}

/** A watch over a counter that is exact at every call (SQLite's WAL index or data_version). */
export function exactWatch(count: () => number): CommitWatch {
	return { count, settle: () => null, behind: () => {} };
}
