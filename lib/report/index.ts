// The transmission report of a fax: how it was sent, as the received file and
// its delivery tell, gathered at ingest and shown on the fax's page.

export { ADVICE, type Advice, adviceFor, STEADY_SPEED } from "./advice.ts";
export type { MailAuthReport } from "./auth-report.ts";
export { buildReport, type HylafaxCall, NO_PAGE_REASON, type ReportInput } from "./build-report.ts";
export { type CallModel, callModel, type FailureKind, type PageModel } from "./call-model.ts";
export { checkedEmailReport, MAIL_AUTH_TIMEOUT_MS, type MailChecks, transactionOf } from "./email-checks.ts";
export {
	type DeviceClock,
	deviceClock,
	type EmailModel,
	emailModel,
	MAIL_LIMITS_MB,
	type ScanSize,
} from "./email-model.ts";
export { safeFileName } from "./email-report.ts";
export {
	type AdviceKey,
	type EndedBy,
	HYLAFAX_REASONS,
	type HylafaxReason,
	reasonOf,
} from "./hylafax-reasons.ts";
export { faxinfoTime, type HylafaxSession, hylafaxSession } from "./hylafax-session.ts";
export { callReportOf, type LiveProgress, liveProgress, SILENT_AFTER_SECONDS } from "./live-progress.ts";
export {
	type Check,
	checkMailAuth,
	likelyOf,
	type MailAuth,
	type MailAuthOptions,
	type MailTransaction,
} from "./mail-auth.ts";
export type {
	CallReport,
	DocumentReport,
	EmailReport,
	FaxReport,
	MailRefusalReport,
	SessionReport,
	TiffPage,
} from "./report.ts";
export { type CallStep, callKeyOf, parseSessionLog, SessionReader, type T30Session } from "./t30-session.ts";
export { emailModelOf, outcomeOfReport, VERDICTS, type Verdict, verdictOf } from "./verdict.ts";
