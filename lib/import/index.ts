// `fax import`: records checked all first, then written all or nothing.
export { checkFaxRecord, type FaxRecord, MAX_FUTURE_SECONDS } from "./fax-record.ts";
export {
	type ImportOptions,
	type ImportProgress,
	type ImportResult,
	type ImportSummary,
	type InvalidFile,
	importFaxes,
	MAX_PROBLEMS_KEPT,
} from "./import-faxes.ts";
