// SQLite: the schema and every statement on faxes.
export { FaxStats, type ReceivedCounts } from "./fax-stats.ts";
export {
	FaxStore,
	LIST_SQL,
	type ListQuery,
	type Lookup,
	type Removal,
	type SenderFilter,
	type StoredFax,
} from "./fax-store.ts";
export { DatabaseOpenError, openDatabase } from "./open-database.ts";
