/** An error PostgreSQL answered with; `code` is its SQLSTATE, or Bun.SQL's code for a lost connection. */
export class PostgresError extends Error {
	readonly code: string;
	constructor(message: string, code: string) {
		super(message);
		this.code = code;
	}
}

/** Bun.SQL's error as a PostgresError: the SQLSTATE (`errno`), else Bun's code for a connection's failure. */
export function asPostgresError(error: unknown): PostgresError {
	if (error instanceof PostgresError) return error;
	const { message, errno, code } = error as { message: string; errno?: string; code?: string };
	return new PostgresError(message, errno ?? code ?? "");
}
