// The store of the faxes, awaited on both engines (bun:sqlite, PostgreSQL): the schema and every statement.

export type { CallRow, CallWrite } from "./calls-in-progress.ts";
export { COMMIT_SOURCES, type CommitSource, type FreshnessSource } from "./commit-counter.ts";
export type { CommitWatch } from "./commit-watch.ts";
export { copyDatabase, databaseDigest } from "./copy-database.ts";
export { openEngine, type StoreLocation } from "./engine.ts";
export type { OriginalFile } from "./fax-originals.ts";
export { FaxStats, type ReceivedCounts } from "./fax-stats.ts";
export {
	type FaxFileBytes,
	type FaxFileKind,
	FaxStore,
	type FaxWriter,
	type KeptWithFax,
	LIST_SQL,
	type ListQuery,
	type Lookup,
	type Publication,
	type Removal,
	type SenderFilter,
	type StoredFax,
} from "./fax-store.ts";
export {
	DatabaseOpenError,
	DEFAULT_BUSY_TIMEOUT_MS,
	MAX_BUSY_TIMEOUT_MS,
	openDatabase,
} from "./open-database.ts";
export {
	DATABASE_TROUBLES,
	type DatabaseTrouble,
	isPassingStorageFailure,
	troubleOf,
} from "./passing-failure.ts";
export { PostgresDatabase, PostgresError } from "./postgres/client.ts";
export { isPassingPostgresFailure } from "./postgres/errors.ts";
export { SchemaNotReadyError } from "./postgres/schema.ts";
export { ImportAbandonedError, type StagedImport } from "./staged-import.ts";
export type { PurgeTurn, StoreEngine } from "./store-engine.ts";
export { DatabaseBusyError, UnconfirmedCommitError } from "./write-lock.ts";
