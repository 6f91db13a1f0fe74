import type { Database, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";

/** Values a statement binds: by `$name` in an object, or by position for `?`. */
export type SqlParams = [] | [Record<string, unknown>] | unknown[];

/**
 * A prepared statement, awaited on both engines: bun:sqlite runs it at once
 * underneath, PostgreSQL (postgres/client.ts) sends it without stopping the
 * event loop.
 */
export interface SqlStatement<Row = unknown> {
	all(...params: SqlParams): Promise<Row[]>;
	get(...params: SqlParams): Promise<Row | null>;
	run(...params: SqlParams): Promise<{ changes: number }>;
}

/**
 * What the fax store asks of an engine's connection: statements in the
 * dialect both engines read (`$name` or `?` parameters, ON CONFLICT, RETURNING).
 */
export interface SqlDatabase {
	readonly engine: "sqlite" | "postgres";
	prepare<Row = unknown>(sql: string): SqlStatement<Row>;
	/**
	 * Runs `work` on a connection of its own: every statement it awaits, from
	 * any of this database's prepared statements, goes to that connection, and
	 * no statement of anyone else does. A transaction begins and ends in one.
	 * `write`: a connection to where writes go (PostgreSQL's DATABASE_WRITE_URL).
	 */
	session<T>(work: (session: SqlSession) => Promise<T>, options?: { write?: boolean }): Promise<T>;
	close(): Promise<void>;
}

/** A session's own statements, beside the prepared ones. */
export interface SqlSession {
	/** Runs statements without parameters. */
	exec(text: string): Promise<void>;
}

/**
 * bun:sqlite behind the awaited statements. A process has one connection, so
 * a session is a turn of it: while one runs (a transaction between its
 * BEGIN and its COMMIT, awaiting as it goes), a statement from elsewhere
 * waits for its end instead of reading the transaction's uncommitted rows,
 * and another session waits to begin.
 */
class SqliteSql implements SqlDatabase {
	readonly engine = "sqlite";
	readonly #db: Database;
	readonly #scope = new AsyncLocalStorage<symbol>();
	#holder: symbol | null = null;
	#ended: Promise<void> = Promise.resolve();

	constructor(db: Database) {
		this.#db = db;
	}

	prepare<Row>(sql: string): SqlStatement<Row> {
		const statement = this.#db.prepare(sql) as unknown as Statement<Row>;
		return {
			all: (...params) => this.#run(() => statement.all(...(params as never[]))),
			get: (...params) => this.#run(() => statement.get(...(params as never[]))),
			run: (...params) => this.#run(() => ({ changes: statement.run(...(params as never[])).changes })),
		};
	}

	#run<T>(step: () => T): Promise<T> {
		if (this.#holder !== null && this.#scope.getStore() !== this.#holder)
			return this.#ended.then(() => this.#run(step));
		try {
			return Promise.resolve(step());
		} catch (error) {
			return Promise.reject(error);
		}
	}

	async session<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
		const exec = async (text: string) => void this.#db.exec(text);
		// A session asked for inside one is that one: a transaction's own step.
		if (this.#holder !== null && this.#scope.getStore() === this.#holder) return work({ exec });
		while (this.#holder !== null) await this.#ended;
		const holder = Symbol("session");
		let end = () => {};
		this.#holder = holder;
		this.#ended = new Promise((resolve) => {
			end = resolve;
		});
		try {
			return await this.#scope.run(holder, () => work({ exec }));
		} finally {
			this.#holder = null;
			end();
		}
	}

	async close(): Promise<void> {
		this.#db.close();
	}
}

/** bun:sqlite as a SqlDatabase. */
export function sqliteSql(db: Database): SqlDatabase {
	return new SqliteSql(db);
}
