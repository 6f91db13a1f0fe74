import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../util/index.ts";

// Live faxes only; a removed or purged fax leaves its slug in removed_faxes so it
// answers 410 and is never reused. received_at is Unix seconds: every comparison
// the API makes is to the whole second. import_id is set only on the rows of a
// large import, which stay hidden until their fax_imports row is published
// (staged-import.ts).
const TABLES = `
CREATE TABLE IF NOT EXISTS faxes (
	id INTEGER PRIMARY KEY,
	slug TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL CHECK (source IN ('phone', 'email')),
	sender TEXT,
	sender_key TEXT,
	received_at INTEGER NOT NULL,
	page_count INTEGER,
	file_size INTEGER,
	import_id INTEGER
);
CREATE INDEX IF NOT EXISTS faxes_by_time ON faxes (received_at, id);
CREATE INDEX IF NOT EXISTS faxes_by_sender ON faxes (sender_key, received_at, id);
CREATE TABLE IF NOT EXISTS removed_faxes (
	slug TEXT PRIMARY KEY,
	removed_at INTEGER NOT NULL,
	import_id INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fax_imports (
	id INTEGER PRIMARY KEY,
	state TEXT NOT NULL CHECK (state IN ('loading', 'published', 'abandoned')),
	owner TEXT NOT NULL,
	heartbeat_at INTEGER NOT NULL,
	first_fax_id INTEGER,
	published_at INTEGER
);
`;

// Columns added since the first schema, for databases created before them.
const ADDED_COLUMNS = [
	["faxes", "import_id", "INTEGER"],
	["removed_faxes", "import_id", "INTEGER"],
] as const;

const INDEXES = `
CREATE INDEX IF NOT EXISTS removed_by_import ON removed_faxes (import_id) WHERE import_id IS NOT NULL;
`;

// PRAGMA user_version: the schema a database is at. Opening a current one
// takes no write lock, so commands opening beside a long write do not wait.
const SCHEMA_VERSION = 1;

function schemaVersion(db: Database): number {
	return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function hasColumn(db: Database, table: string, column: string): boolean {
	return db.query("SELECT 1 FROM pragma_table_info(?) WHERE name = ?").get(table, column) !== null;
}

function createOrUpgradeSchema(db: Database): void {
	if (schemaVersion(db) >= SCHEMA_VERSION) return;
	db.transaction(() => {
		if (schemaVersion(db) >= SCHEMA_VERSION) return;
		db.exec(TABLES);
		for (const [table, column, type] of ADDED_COLUMNS) {
			if (!hasColumn(db, table, column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
		}
		db.exec(INDEXES);
		db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
	}).immediate();
}

/** The database file cannot be created or opened: the disk, a path or its permissions. */
export class DatabaseOpenError extends Error {}

function open(path: string): Database {
	try {
		if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
		return new Database(path, { create: true, strict: true });
	} catch (error) {
		throw new DatabaseOpenError(
			`cannot open the database at ${path} (DATABASE_PATH): ${errorMessage(error)}`,
		);
	}
}

/** How long a write waits for another writer (BUSY_TIMEOUT_MS) unless told otherwise. */
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;
/** The longest wait allowed: a loading import silent for twice as long counts as abandoned. */
export const MAX_BUSY_TIMEOUT_MS = 60_000;

/**
 * Opens (creating if needed) the fax database in WAL mode with the schema in
 * place. `busyTimeoutMs` bounds how long a write of this connection waits
 * while another connection writes (see WriteLock); readers never wait for a
 * writer in WAL mode.
 */
export function openDatabase(path: string, options: { busyTimeoutMs?: number } = {}): Database {
	const db = open(path);
	db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
	db.exec("PRAGMA journal_mode = WAL");
	db.exec("PRAGMA synchronous = NORMAL");
	createOrUpgradeSchema(db);
	return db;
}
