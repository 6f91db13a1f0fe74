import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../util/index.ts";
import { migrate } from "./schema.ts";

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

/** Opens (creating if needed) the fax database in WAL mode with the schema in place. */
export function openDatabase(path: string): Database {
	const db = open(path);
	// Readers never wait for the writer in WAL mode; the busy timeout covers the
	// short moments when two writers (server purge and an operator command) meet.
	db.exec("PRAGMA busy_timeout = 5000");
	db.exec("PRAGMA journal_mode = WAL");
	db.exec("PRAGMA synchronous = NORMAL");
	migrate(db);
	return db;
}
