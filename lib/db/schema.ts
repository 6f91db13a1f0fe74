import type { Database } from "bun:sqlite";
import { storedSenderKey } from "../fax/index.ts";

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

// Version 3: the rows of a large import carry its id and stay hidden until
// its fax_imports row is published (staged-import.ts); import_id is null on
// every other row. published_seq numbers the publications, so a reader that
// remembers the last one it saw finds the imports shown since (lib/recent).
const STAGED_IMPORTS = `
ALTER TABLE faxes ADD COLUMN import_id INTEGER;
ALTER TABLE removed_faxes ADD COLUMN import_id INTEGER;
CREATE TABLE IF NOT EXISTS fax_imports (
	id INTEGER PRIMARY KEY,
	state TEXT NOT NULL CHECK (state IN ('loading', 'published', 'abandoned')),
	owner TEXT NOT NULL,
	heartbeat_at INTEGER NOT NULL,
	first_fax_id INTEGER,
	published_at INTEGER,
	published_seq INTEGER UNIQUE
);
CREATE INDEX IF NOT EXISTS removed_by_import ON removed_faxes (import_id) WHERE import_id IS NOT NULL;
`;

// Version 4: what a receiver handed over, by the key it names the fax with
// (a Message-ID, a HylaFAX queue file), and the slug it became. Kept after the
// fax is removed or purged, like its tombstone: handing the same fax over
// again (a re-delivery, a re-run) finds it here and lists nothing new.
const RECEIPTS = `
CREATE TABLE IF NOT EXISTS receipts (
	key TEXT PRIMARY KEY,
	slug TEXT NOT NULL
) WITHOUT ROWID;
`;

// Version 5: the bytes of each fax's PDF and thumbnail, beside its row and
// written in the same transaction, so a replica of this one file (Litestream)
// or a copy of it (`fax backup`) never holds a row without its files. The
// files on disk are still what the API serves; a restore writes them back
// from here (lib/backup). A deleted row takes its bytes with it. A rowid
// table: SQLite advises against WITHOUT ROWID for rows this large.
const FAX_FILES = `
CREATE TABLE IF NOT EXISTS fax_files (
	slug TEXT PRIMARY KEY,
	pdf BLOB NOT NULL,
	thumbnail BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS fax_files_follow_row AFTER DELETE ON faxes
BEGIN
	DELETE FROM fax_files WHERE slug = old.slug;
END;
`;

// Version 6: each received fax's transmission report (lib/report), as JSON,
// kept while its row lives.
const FAX_REPORTS = `
CREATE TABLE IF NOT EXISTS fax_reports (
	slug TEXT PRIMARY KEY,
	report TEXT NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS fax_reports_follow_row AFTER DELETE ON faxes
BEGIN
	DELETE FROM fax_reports WHERE slug = old.slug;
END;
`;
// Version 7: the file as received of each fax listed as not processable, so
// the operator can process it again once the host is fixed (`fax reprocess`).
// Never served; it goes with its row, after 30 days at the latest.
const FAX_ORIGINALS = `
CREATE TABLE IF NOT EXISTS fax_originals (slug TEXT PRIMARY KEY, filename TEXT, relayed INTEGER NOT NULL, original BLOB NOT NULL);
CREATE TRIGGER IF NOT EXISTS fax_originals_follow_row AFTER DELETE ON faxes
BEGIN DELETE FROM fax_originals WHERE slug = old.slug; END;
`;
// Version 8: the calls being received now, one row each, written as their
// session log grows (lib/live-calls): how far each has come (`view`, what the
// pages show) and the call's model so far (`call`). `listed` is the slug of
// the fax the call became, set in the fax's own transaction: a reader shows
// the fax from then on, never both. Never copied (a backup holds faxes);
// a row whose call ended is deleted within a minute.
const CALLS_IN_PROGRESS = `
CREATE TABLE IF NOT EXISTS calls_in_progress (
	call_key TEXT PRIMARY KEY,
	sender TEXT,
	sender_key TEXT,
	started_at INTEGER NOT NULL,
	line_at INTEGER NOT NULL,
	ended INTEGER NOT NULL,
	listed TEXT,
	view TEXT NOT NULL,
	call TEXT NOT NULL
);
`;
/**
 * What each schema version adds, in SQLite's dialect: both engines apply
 * these (postgres/schema.ts translates them), so a new version is one entry
 * here. Version 2 is a new database's whole first schema.
 */
export const SCHEMA_STEPS: Readonly<Record<number, string>> = {
	2: `${FAXES};${FAXES_INDEXES}${REMOVED_FAXES};`,
	3: STAGED_IMPORTS,
	4: RECEIPTS,
	5: FAX_FILES,
	6: FAX_REPORTS,
	7: FAX_ORIGINALS,
	8: CALLS_IN_PROGRESS,
};

/** The version this code writes into `PRAGMA user_version`. */
export const SCHEMA_VERSION = Math.max(...Object.keys(SCHEMA_STEPS).map(Number));

/**
 * Every table a copy of the database holds (copy-database.ts), with the
 * column its rows are read in order of; parents before the rows that name them.
 */
export const COPIED_TABLES: readonly { table: string; key: string }[] = [
	{ table: "fax_imports", key: "id" },
	{ table: "faxes", key: "id" },
	{ table: "removed_faxes", key: "seq" },
	{ table: "receipts", key: "key" },
	{ table: "fax_files", key: "slug" },
	{ table: "fax_reports", key: "slug" },
	{ table: "fax_originals", key: "slug" },
];

// A write transaction holds the lock other writers (a receiving `fax ingest`)
// wait for; batches keep each one short on a large database.
const BATCH_ROWS = 5000;

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
 * Version 2: match keys are computed from the normalised sender (any script,
 * Unicode form, display name or comment). Only senders with non-ASCII text or
 * an at-sign can have a different key; the others are not touched. Running it
 * twice (two processes opening the same old file at once) does no harm.
 */
function recomputeSenderKeys(db: Database): void {
	const rows = db
		.query<{ id: number; sender: string; sender_key: string | null }, []>(
			"SELECT id, sender, sender_key FROM faxes WHERE sender GLOB '*[^ -~]*' OR sender GLOB '*@*'",
		)
		.all();
	const changed = rows
		.map((row) => ({ id: row.id, key: storedSenderKey(row.sender), old: row.sender_key }))
		.filter((row) => row.key !== row.old);
	const update = db.prepare("UPDATE faxes SET sender_key = $key WHERE id = $id");
	const apply = db.transaction((batch: typeof changed) => {
		for (const { id, key } of batch) update.run({ id, key });
	});
	for (let start = 0; start < changed.length; start += BATCH_ROWS) {
		apply.immediate(changed.slice(start, start + BATCH_ROWS));
	}
}

const versionOf = (db: Database) =>
	(db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

/**
 * Brings the schema to SCHEMA_VERSION: creates it in a new file, rebuilds an
 * older one. The table checks are repeated inside a write transaction, so two
 * processes opening an old file at once rebuild it once.
 */
export function migrate(db: Database): void {
	if (versionOf(db) === SCHEMA_VERSION) return;
	db.transaction(() => {
		const version = versionOf(db);
		if (version > SCHEMA_VERSION) {
			throw new Error(
				`the database has schema version ${version}; this program knows up to ${SCHEMA_VERSION}`,
			);
		}
		if (version >= 1) return;
		if (hasTable(db, "faxes")) {
			fromVersion0(db);
			db.exec("PRAGMA user_version = 1");
		} else {
			db.exec(SCHEMA_STEPS[2] ?? "");
			db.exec("PRAGMA user_version = 2");
		}
	}).immediate();
	if (versionOf(db) === 1) {
		recomputeSenderKeys(db);
		db.exec("PRAGMA user_version = 2");
	}
	for (let version = 3; version <= SCHEMA_VERSION; version++) {
		db.transaction(() => {
			if (versionOf(db) !== version - 1) return;
			db.exec(SCHEMA_STEPS[version] ?? "");
			db.exec(`PRAGMA user_version = ${version}`);
		}).immediate();
	}
}
