// `fax import`: records checked all first, then written all or nothing.
export { checkFaxRecord, type FaxRecord, FaxRecordSchema } from "./fax-record.ts";
export { type ImportResult, type ImportSummary, importFaxes } from "./import-faxes.ts";
