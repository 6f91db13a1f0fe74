import type { Database } from "bun:sqlite";

// Live faxes only; a removed or purged fax leaves its slug in removed_faxes so it
// answers 410 and is never reused. received_at is Unix seconds: every comparison
// the API makes is to the whole second.
//
// Both tables count up with AUTOINCREMENT, so an id is never handed out twice,
// even after the newest row was deleted: a reader that remembers the last id and
// the last removal it has seen finds everything committed since by asking for
// larger ones (lib/recent).
const FAXES = `
CREATE TABLE faxes (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	slug TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL CHECK (source IN ('phone', 'email')),
	sender TEXT,
	sender_key TEXT,
	received_at INTEGER NOT NULL,
	page_count INTEGER,
	file_size INTEGER
)`;
const FAXES_INDEXES = `
CREATE INDEX faxes_by_time ON faxes (received_at, id);
CREATE INDEX faxes_by_sender ON faxes (sender_key, received_at, id);
`;
const REMOVED_FAXES = `
CREATE TABLE removed_faxes (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	slug TEXT NOT NULL UNIQUE,
	removed_at INTEGER NOT NULL
)`;

/** The version this code writes into `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

function hasTable(db: Database, name: string): boolean {
	return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $name").get({ name }) !== null;
}

// Version 0 (files written before the version was kept): faxes without
// AUTOINCREMENT, removed_faxes keyed by slug alone. Both are rebuilt, ids kept.
function fromVersion0(db: Database): void {
	db.exec(`${FAXES.replace("CREATE TABLE faxes", "CREATE TABLE faxes_v1")};
		INSERT INTO faxes_v1 (id, slug, source, sender, sender_key, received_at, page_count, file_size)
			SELECT id, slug, source, sender, sender_key, received_at, page_count, file_size FROM faxes ORDER BY id;
		DROP TABLE faxes;
		ALTER TABLE faxes_v1 RENAME TO faxes;
		${FAXES_INDEXES}
		${REMOVED_FAXES.replace("CREATE TABLE removed_faxes", "CREATE TABLE removed_faxes_v1")};
		INSERT INTO removed_faxes_v1 (slug, removed_at) SELECT slug, removed_at FROM removed_faxes ORDER BY removed_at, slug;
		DROP TABLE removed_faxes;
		ALTER TABLE removed_faxes_v1 RENAME TO removed_faxes;`);
}

/**
 * Brings the schema to SCHEMA_VERSION: creates it in a new file, rebuilds an
 * older one. The check is repeated inside a write transaction, so two
 * processes opening an old file at once migrate it once.
 */
export function migrate(db: Database): void {
	const versionOf = () => (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
	if (versionOf() === SCHEMA_VERSION) return;
	db.transaction(() => {
		const version = versionOf();
		if (version === SCHEMA_VERSION) return;
		if (version > SCHEMA_VERSION) {
			throw new Error(
				`the database has schema version ${version}; this program knows up to ${SCHEMA_VERSION}`,
			);
		}
		if (hasTable(db, "faxes")) fromVersion0(db);
		else db.exec(`${FAXES};${FAXES_INDEXES}${REMOVED_FAXES};`);
		db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
	}).immediate();
}
