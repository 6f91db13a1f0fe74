import { createHash, type Hash } from "node:crypto";
import { COPIED_TABLES } from "./schema.ts";
import type { SqlDatabase } from "./sql.ts";
import type { StoreEngine } from "./store-engine.ts";

// Rows read and written per statement; fax_files rows carry a fax's files.
const PAGE_ROWS = 200;

type Row = Record<string, unknown>;

/** A table's rows in key order, a page at a time, as the reader sees them now. */
async function* rowsOf(sql: SqlDatabase, table: string, key: string): AsyncGenerator<Row[]> {
	const first = sql.prepare<Row>(`SELECT * FROM ${table} ORDER BY ${key} LIMIT ${PAGE_ROWS}`);
	const next = sql.prepare<Row>(
		`SELECT * FROM ${table} WHERE ${key} > $after ORDER BY ${key} LIMIT ${PAGE_ROWS}`,
	);
	let page = await first.all();
	while (page.length > 0) {
		yield page;
		if (page.length < PAGE_ROWS) return;
		page = await next.all({ after: page[page.length - 1]?.[key] });
	}
}

function insertInto(target: SqlDatabase, table: string, columns: string[]) {
	const names = columns.join(", ");
	const values = columns.map((column) => `$${column}`).join(", ");
	return target.prepare(`INSERT INTO ${table} (${names}) VALUES (${values})`);
}

/** Identity columns go on counting after the copied ids, as AUTOINCREMENT does. */
async function continueIds(target: StoreEngine): Promise<void> {
	if (target.sql.engine !== "postgres") return;
	const sequenceOf = target.sql.prepare<{ seq: string | null }>(
		"SELECT pg_get_serial_sequence($table, $key) AS seq",
	);
	for (const { table, key } of COPIED_TABLES) {
		const seq = (await sequenceOf.get({ table, key }))?.seq;
		if (!seq) continue;
		await target.sql
			.prepare(`SELECT setval($seq::regclass, max(${key})) FROM ${table} HAVING count(*) > 0`)
			.get({ seq });
	}
}

/**
 * Copies every row of every table (schema.ts COPIED_TABLES) from one
 * database into an empty one, in one read transaction of the source, each
 * page of rows in a write transaction of the target. Ids are kept.
 */
export function copyDatabase(
	source: StoreEngine,
	target: StoreEngine,
	onPage?: (rows: number) => void,
): Promise<void> {
	return source.snapshot(async () => {
		for (const { table, key } of COPIED_TABLES) {
			let insert: ReturnType<typeof insertInto> | undefined;
			for await (const page of rowsOf(source.sql, table, key)) {
				insert ??= insertInto(target.sql, table, Object.keys(page[0] ?? {}));
				const statement = insert;
				const attempt = await target.transactions.attempt(async () => {
					for (const row of page) await statement.run(row);
				});
				if (!attempt.began) throw new Error("another process writes to the target database");
				onPage?.(page.length);
			}
		}
		await continueIds(target);
	});
}

function hashValue(hash: Hash, value: unknown): void {
	if (value === null || value === undefined) hash.update("\u0000n");
	else if (value instanceof Uint8Array) hash.update(`\u0000b${value.length}:`).update(value);
	else hash.update(`\u0000${typeof value}:${String(value)}`);
}

/** Rows and a digest of every value, per table: two databases that hold the same faxes give the same. */
export async function databaseDigest(
	engine: StoreEngine,
): Promise<Record<string, { rows: number; sha256: string }>> {
	const digest: Record<string, { rows: number; sha256: string }> = {};
	await engine.snapshot(async () => {
		for (const { table, key } of COPIED_TABLES) {
			const hash = createHash("sha256");
			let rows = 0;
			for await (const page of rowsOf(engine.sql, table, key)) {
				for (const row of page) {
					for (const column of Object.keys(row).sort()) hashValue(hash.update(column), row[column]);
					rows++;
				}
			}
			digest[table] = { rows, sha256: hash.digest("hex") };
		}
	});
	return digest;
}
