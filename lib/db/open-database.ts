import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage, makeSharedDirSync, shareFileSync } from "../util/index.ts";
import { migrate } from "./schema.ts";

/** The database file cannot be created or opened: the disk, a path or its permissions. */
export class DatabaseOpenError extends Error {}

function open(path: string): Database {
	try {
		if (path === ":memory:") return new Database(path, { strict: true });
		makeSharedDirSync(dirname(path));
		const created = !existsSync(path);
		const db = new Database(path, { create: true, strict: true });
		// Before the first write: SQLite gives -wal and -shm the database file's mode.
		if (created) shareFileSync(path);
		return db;
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
	migrate(db);
	return db;
}
