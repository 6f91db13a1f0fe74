import { isPassingPostgresFailure } from "./postgres/errors.ts";

// SQLite failing for a passing reason (disk full, an I/O error, a lock held
// too long), or PostgreSQL away (stopped, unreachable, failing over), is no
// fault of the request: clients retry. Anything else (a corrupt file, a bug)
// is not passing.
const PASSING_SQLITE_FAILURE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM)/;

/** True for a failure of the database that passes by itself or by the operator's hand, never by the request's. */
export function isPassingStorageFailure(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return (
		(error instanceof Error &&
			error.name === "SQLiteError" &&
			typeof code === "string" &&
			PASSING_SQLITE_FAILURE.test(code)) ||
		isPassingPostgresFailure(error)
	);
}

/** What a passing failure says of the database: read-only (a standby, or one mid-failover), else unavailable. */
export const DATABASE_TROUBLES = ["unavailable", "read-only"] as const;
export type DatabaseTrouble = (typeof DATABASE_TROUBLES)[number];

/** The trouble a failure tells of; null for a failure that is not passing. */
export function troubleOf(error: unknown): DatabaseTrouble | null {
	if (!isPassingStorageFailure(error)) return null;
	return (error as { code?: unknown }).code === "25006" ? "read-only" : "unavailable";
}
