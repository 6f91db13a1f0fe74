// SQLite: the schema and every statement on faxes.
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
