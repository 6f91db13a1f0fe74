// The transmission report of a fax: how it was sent, as the received file and
// its delivery tell, gathered at ingest and shown on the fax's page.
export { buildReport, type HylafaxCall, NO_PAGE_REASON, type ReportInput } from "./build-report.ts";
export { safeFileName } from "./email-report.ts";
export { faxinfoTime, type HylafaxSession, hylafaxSession } from "./hylafax-session.ts";
export type {
	CallReport,
	DocumentReport,
	EmailReport,
	FaxReport,
	SessionReport,
	TiffPage,
} from "./report.ts";
export { parseSessionLog, type T30Session } from "./t30-session.ts";
export { VERDICTS, type Verdict, verdictOf } from "./verdict.ts";
