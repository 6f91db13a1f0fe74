/** An error PostgreSQL answered with; `code` is its SQLSTATE, or Bun.SQL's code for a lost connection. */
export class PostgresError extends Error {
	readonly code: string;
	constructor(message: string, code: string) {
		super(message);
		this.name = "PostgresError";
		this.code = code;
	}
}

// PostgreSQL gone or not taking work for a while: a connection lost or refused
// (SQLSTATE class 08, Bun.SQL's connection codes), the server shutting down or
// starting (57P01-57P03), out of resources (class 53), or a read-only standby
// asked to write mid-failover (25006). Anything else (a missing table, a bug)
// is no passing state.
const PASSING = /^(08|53|57P0[123]|25006|ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT)|ECONN)/;

/** True for a PostgresError that says the database is away for a while, not that a request or a table is wrong. */
export function isPassingPostgresFailure(error: unknown): boolean {
	return error instanceof PostgresError && PASSING.test(error.code);
}

/** Bun.SQL's error as a PostgresError: the SQLSTATE (`errno`), else Bun's code for a connection's failure. */
export function asPostgresError(error: unknown): PostgresError {
	if (error instanceof PostgresError) return error;
	const { message, errno, code } = error as { message: string; errno?: string; code?: string };
	return new PostgresError(message, errno ?? code ?? "");
}

/**
 * Seconds Bun.SQL tries to establish a connection. A server that closes it at
 * once (HAProxy with no primary, PostgreSQL starting) is tried again until
 * then, so this is how long a write waits for a primary that is not there:
 * 10 s added as much to every failover's write outage.
 */
export const CONNECT_TIMEOUT_SECONDS = 3;

/**
 * `query`'s answer, or a PostgresError (08006) once `timeoutMs` has passed
 * without one; Bun.SQL's own failures become PostgresErrors too.
 */
export async function answeredWithin<T>(query: Promise<T>, timeoutMs: number): Promise<T> {
	let timer: Timer | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new PostgresError(`PostgreSQL did not answer in ${timeoutMs / 1000} s`, "08006")),
			timeoutMs,
		);
	});
	// A query that ends after its timeout has no one to tell.
	query.catch(() => {});
	try {
		return await Promise.race([query, timeout]);
	} catch (error) {
		throw asPostgresError(error);
	} finally {
		clearTimeout(timer);
	}
}
