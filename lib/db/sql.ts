import type { Database } from "bun:sqlite";

/** Values a statement binds: by `$name` in an object, or by position for `?`. */
export type SqlParams = [] | [Record<string, unknown>] | unknown[];

/** A prepared statement, run synchronously (bun:sqlite's own, or postgres/sync-client.ts). */
export interface SqlStatement<Row = unknown> {
	all(...params: SqlParams): Row[];
	get(...params: SqlParams): Row | null;
	run(...params: SqlParams): { changes: number };
}

/**
 * What the fax store asks of an engine's connection: statements in the
 * dialect both engines read (`$name` or `?` parameters, ON CONFLICT, RETURNING).
 */
export interface SqlDatabase {
	readonly engine: "sqlite" | "postgres";
	prepare<Row = unknown>(sql: string): SqlStatement<Row>;
	close(): void;
}

/** bun:sqlite as a SqlDatabase: its statements are used as they are. */
export function sqliteSql(db: Database): SqlDatabase {
	return {
		engine: "sqlite",
		prepare: <Row>(sql: string) => db.prepare(sql) as unknown as SqlStatement<Row>,
		close: () => db.close(),
	};
}
