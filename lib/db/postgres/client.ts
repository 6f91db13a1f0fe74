import { AsyncLocalStorage } from "node:async_hooks";
import { type ReservedSQL, SQL } from "bun";
import type { SqlDatabase, SqlParams, SqlSession, SqlStatement } from "../sql.ts";
import { asPostgresError, CONNECT_TIMEOUT_SECONDS, PostgresError } from "./errors.ts";

export { PostgresError };

// PostgreSQL's type oid of int8: Bun.SQL gives it as a string, the store's
// numbers (ids, Unix seconds, counts) are well inside 2^53.
const INT8 = 20;
// Statements outside a session share this many connections: reads of lists
// older than memory, lookups, the calls in progress, a write's turn.
const POOL_SIZE = 8;

type Result = Record<string, unknown>[] & {
	count: number | null;
	columns?: { name: string; type: number }[];
};

/** What one statement answered. */
export interface Answer {
	rows: Record<string, unknown>[];
	changes: number;
	/** Asked with `cancelAfterMs` and cancelled past it (a statement that ended first still answers). */
	cancelled: boolean;
}

function numbersOf(rows: Result): Record<string, unknown>[] {
	const int8 = (rows.columns ?? []).filter((column) => column.type === INT8).map((column) => column.name);
	const copy = [...rows];
	if (int8.length === 0) return copy;
	for (const row of copy) for (const name of int8) if (row[name] !== null) row[name] = Number(row[name]);
	return copy;
}

/**
 * A statement's text with `$name` and `?` parameters numbered as PostgreSQL
 * reads them, and the names in the order they are bound.
 */
function numbered(sql: string): { text: string; names: (string | number)[] } {
	const names: (string | number)[] = [];
	let positional = 0;
	const text = sql.replace(/\$([A-Za-z_][A-Za-z0-9_]*)|\?/g, (_match, name: string | undefined) => {
		const key = name ?? positional++;
		const index = names.indexOf(key);
		if (index >= 0) return `$${index + 1}`;
		names.push(key);
		return `$${names.length}`;
	});
	return { text, names };
}

function bound(names: (string | number)[], params: SqlParams): unknown[] {
	const first = params[0];
	const byName = typeof first === "object" && first !== null && !(first instanceof Uint8Array);
	return names.map((name) =>
		typeof name === "string" ? (byName ? (first as Record<string, unknown>)[name] : undefined) : params[name],
	);
}

/** Runs one statement on `on`, cancelling it past `cancelAfterMs` when given. */
async function send(on: SQL, text: string, params: unknown[], cancelAfterMs?: number): Promise<Answer> {
	const query = on.unsafe(text, params);
	let cancelled = false;
	const timer =
		cancelAfterMs === undefined
			? undefined
			: setTimeout(() => {
					cancelled = true;
					query.cancel();
				}, cancelAfterMs);
	try {
		const rows = (await query) as unknown as Result;
		return { rows: numbersOf(rows), changes: rows.count ?? 0, cancelled };
	} catch (error) {
		throw asPostgresError(error);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * PostgreSQL through Bun.SQL in the server's own thread: every statement is
 * awaited, so a slow or distant database delays the requests that need it and
 * never the event loop. Statements share a small pool; a session (a
 * transaction, a snapshot) reserves one connection, and the statements its
 * work awaits go there, found by their async context.
 */
export class PostgresDatabase implements SqlDatabase {
	readonly engine = "postgres";
	readonly #sql: SQL;
	/** Where write sessions reserve their connection: #sql itself unless `writeUrl` names another server. */
	readonly #writes: SQL;
	readonly #scope = new AsyncLocalStorage<ReservedSQL>();
	#closed = false;

	/**
	 * `writeUrl`: the server write sessions go to (a cluster's primary route),
	 * when reads go to another (this node's own).
	 */
	constructor(url: string, options: { poolSize?: number; writeUrl?: string } = {}) {
		const pool = (at: string) =>
			new SQL(at, {
				max: options.poolSize ?? POOL_SIZE,
				idleTimeout: 60,
				connectionTimeout: CONNECT_TIMEOUT_SECONDS,
			});
		this.#sql = pool(url);
		this.#writes =
			options.writeUrl === undefined || options.writeUrl === url ? this.#sql : pool(options.writeUrl);
	}

	/** True when writes go to another server than reads. */
	get splitsWrites(): boolean {
		return this.#writes !== this.#sql;
	}

	/**
	 * Runs one statement's text with positional parameters ($1, $2...), in the
	 * caller's session if it is in one. `cancelAfterMs`: PostgreSQL is asked to
	 * cancel it past that time, and `cancelled` says so.
	 */
	run(text: string, params: unknown[] = [], options: { cancelAfterMs?: number } = {}): Promise<Answer> {
		if (this.#closed) return Promise.reject(new PostgresError("the database connection is closed", "08003"));
		return send(this.#scope.getStore() ?? this.#sql, text, params, options.cancelAfterMs);
	}

	prepare<Row = unknown>(sql: string): SqlStatement<Row> {
		const { text, names } = numbered(sql);
		const run = (params: SqlParams) => this.run(text, bound(names, params));
		return {
			all: async (...params) => (await run(params)).rows as Row[],
			get: async (...params) => ((await run(params)).rows[0] as Row | undefined) ?? null,
			run: async (...params) => ({ changes: (await run(params)).changes }),
		};
	}

	async session<T>(work: (session: SqlSession) => Promise<T>, options: { write?: boolean } = {}): Promise<T> {
		const own = this.#scope.getStore();
		const exec = async (text: string) => void (await this.run(text));
		if (own !== undefined) return work({ exec });
		let reserved: ReservedSQL;
		try {
			reserved = await (options.write ? this.#writes : this.#sql).reserve();
		} catch (error) {
			throw asPostgresError(error);
		}
		try {
			return await this.#scope.run(reserved, () => work({ exec }));
		} finally {
			reserved.release();
		}
	}

	async close(): Promise<void> {
		if (this.#closed) return;
		this.#closed = true;
		if (this.#writes !== this.#sql) await this.#writes.close().catch(() => {});
		await this.#sql.close().catch(() => {});
	}
}
