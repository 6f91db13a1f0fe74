// The verdict at the top of a fax's page: all good, or what went wrong and
// what to try. ONE table: the first rule that holds gives the verdict. A fax
// by phone is judged from the model of its call (call-model.ts) and advised
// from the advice table (advice.ts); each rule is tested in
// test/report/verdict.test.ts with a report built from a real call's session
// log or a real email (fixtures/).
import { adviceFor } from "./advice.ts";
import { type CallModel, callModel, type PageModel } from "./call-model.ts";
import { type EmailModel, emailModel } from "./email-model.ts";
import type { FaxReport, MailRefusalReport } from "./report.ts";

const numbers = new Intl.NumberFormat("en");
const numberText = (value: number) => numbers.format(value);

export type Verdict = {
	/** Which rule of VERDICTS gave it. */
	rule: string;
	status: "good" | "warning" | "failed";
	/** What happened, in a tester's words. */
	title: string;
	/** What to change: the advice that fits. */
	advice: string[];
	/** The kind of outcome in a few words, for the list row; null when all went well. */
	row: string | null;
};

type Facts = { report: FaxReport; model: CallModel | null; email: EmailModel | null };

type Rule = {
	rule: string;
	status: Verdict["status"];
	when: (facts: Facts) => boolean;
	title: (facts: Facts) => string;
	/** The advice of a rule of its own; otherwise a call's comes from the advice table. */
	advice?: (facts: Facts) => string[];
	row: (facts: Facts) => string | null;
};

const timesWord = (count: number) => (count === 1 ? "once" : `${numberText(count)} times`);
const pagesWord = (count: number) => `${numberText(count)} page${count === 1 ? "" : "s"}`;
const failed = (kind: CallModel["failure"]) => (facts: Facts) => facts.model?.failure === kind;
/** The model of a fax by phone; the rules that read it hold only for one. */
const model = (facts: Facts) => facts.model as CallModel;
const endingWords = (facts: Facts) => ` ${model(facts).ending.words}`;
/** The model of an email test; the rules that read it hold only for one. */
const email = (facts: Facts) => facts.email as EmailModel;
const likely = (facts: Facts) => facts.email?.auth?.likely;
/** How a message that never arrived whole ended; the rule that reads it holds only for one. */
const refusal = (facts: Facts) => facts.report.refused as MailRefusalReport;
/** A good email test's last words: what a real recipient would do, when it was checked. */
const recipientWords = (facts: Facts) => (facts.email?.auth ? ` ${facts.email.auth.words}` : "");

function damagedWords(call: CallModel): string {
	const { damagedFrames, crpsSent } = call.line;
	if (damagedFrames === 0) return "";
	const repeats = crpsSent === 0 ? "" : `; we asked for them again ${timesWord(crpsSent)}`;
	return ` ${numberText(damagedFrames)} of its signals arrived damaged${repeats}.`;
}

/** How much of a partial page came, as the share of a whole one. */
function partialWords(page: PageModel): string {
	if (page.state === "absent") return ` None of page ${page.page} came.`;
	if (page.lines === null || page.of === null)
		return ` Part of page ${page.page} came; how much is not known.`;
	const share = Math.min(100, Math.max(5, Math.round((page.lines / page.of.lines) * 20) * 5));
	return ` Page ${page.page} is partial: ${numberText(page.lines)} lines came, of about ${numberText(page.of.lines)} in ${page.of.basis}, so the PDF shows only the top ${share} % of it.`;
}

/** How a message that never arrived whole ended, in a tester's words. */
function refusalWords(refused: MailRefusalReport): string {
	const limit = `${numberText(refused.limitBytes / 1024 / 1024)} MiB`;
	if (refused.kind === "too-large")
		return `our mail server refused it as larger than ${limit}, the most it takes, so nothing of it was kept.`;
	const after = refused.bytes === null ? "" : ` after ${numberText(refused.bytes)} bytes of it`;
	return refused.kind === "lost"
		? `the connection ended${after}, before the message was complete, so nothing of it was kept.`
		: `your device stopped sending${after} and our mail server gave up waiting, so nothing of it was kept.`;
}

const REFUSAL_ADVICE: Record<MailRefusalReport["kind"], string[]> = {
	"too-large": [
		"Scan at 200 or 300 dpi rather than 600, in black and white or greyscale rather than colour, or send fewer pages in one email.",
		"If the device can split a large scan into several emails, set its largest email size below your mail provider's limit (often 10 or 25 MB).",
	],
	lost: [
		"Check the device's network and any firewall or proxy between it and the Internet: something ended the connection during the message.",
		"If it happens only with large scans, lower the resolution or send fewer pages: a slow link may be cut before a large message is through.",
	],
	timeout: [
		"Check the device's network: its data stopped coming for minutes during the message.",
		"If the device scans while it sends, let it finish the scan first (scan to memory), or send fewer pages.",
	],
};

const REFUSAL_ROWS: Record<MailRefusalReport["kind"], string> = {
	"too-large": "refused: message too large",
	lost: "connection lost while sending",
	timeout: "device stopped sending",
};

function worstBadLines(call: CallModel): PageModel {
	return call.pages.reduce((a, b) => (a.badLines >= b.badLines ? a : b));
}

/** The rules, most serious first. */
export const VERDICTS: Rule[] = [
	{
		rule: "email-not-taken",
		status: "failed",
		when: ({ report }) => report.refused !== undefined,
		title: (facts) =>
			`Your device began sending the test to our mail server, but ${refusalWords(refusal(facts))}`,
		advice: (facts) => REFUSAL_ADVICE[refusal(facts).kind],
		row: (facts) => REFUSAL_ROWS[refusal(facts).kind],
	},
	{
		rule: "no-fax-machine",
		status: "failed",
		when: failed("no-fax-machine"),
		title: (facts) =>
			`A call came in, but no fax machine answered ours, so no page arrived.${endingWords(facts)}`,
		row: () => "no fax machine answered",
	},
	{
		rule: "handshake-failed",
		status: "failed",
		when: failed("handshake"),
		title: (facts) =>
			`Your fax machine called, but the two machines never agreed how to send, so no page arrived.${damagedWords(model(facts))}${endingWords(facts)}`,
		row: () => "call failed before page 1",
	},
	{
		rule: "ended-before-first-page",
		status: "failed",
		when: failed("before-first-page"),
		title: (facts) =>
			`The machines agreed how to send, then the call ended before page 1 arrived.${endingWords(facts)}`,
		row: () => "call ended before page 1",
	},
	{
		rule: "ended-during-page",
		status: "failed",
		when: failed("during-page"),
		title: (facts) => {
			const call = model(facts);
			const page = call.pages.at(-1) as PageModel;
			return `The call ended during page ${page.page}: ${pagesWord(call.wholePages)} arrived whole.${partialWords(page)}${endingWords(facts)}`;
		},
		row: (facts) => `call ended during page ${model(facts).failedPage}`,
	},
	{
		rule: "ended-after-page",
		status: "failed",
		when: failed("after-page"),
		title: (facts) => {
			const call = model(facts);
			const more = /MPS$/.test(call.pages.at(-1)?.postPage ?? "")
				? ", though your machine had said more would follow"
				: ", before your machine said it was the last page";
			return `The call ended after page ${call.failedPage}${more}: ${pagesWord(call.wholePages)} arrived whole.${endingWords(facts)}`;
		},
		row: (facts) => `call ended after page ${model(facts).failedPage}`,
	},
	{
		rule: "ended-after-last-page",
		status: "warning",
		when: failed("after-last-page"),
		title: (facts) =>
			`Every page arrived whole (${pagesWord(model(facts).wholePages)}), the last one as your machine announced it, but the call did not end cleanly.${endingWords(facts)}`,
		row: () => "all pages whole; the call ended with an error",
	},
	{
		rule: "call-not-known",
		status: "warning",
		when: (facts) => facts.model?.complete === "unknown" && facts.report.problem === undefined,
		title: ({ model }) => {
			const pages = model?.filePages ?? null;
			const what = pages === null ? "The fax arrived" : `${pagesWord(pages)} arrived`;
			return `${what}, but no session log came with this fax, so whether that is the whole fax is not known.`;
		},
		row: () => "end of the call not known",
	},
	{
		rule: "bad-lines",
		status: "warning",
		when: (facts) => (facts.model?.line.badLines ?? 0) > 0,
		title: (facts) => {
			const worst = worstBadLines(model(facts));
			return `The pages arrived, but damaged: page ${worst.page} had ${numberText(worst.badLines)} bad lines (${numberText(worst.consecutiveBad)} in a row), which HylaFAX filled in by repeating the line above.`;
		},
		row: () => "arrived with damaged lines",
	},
	{
		rule: "ecm-resent",
		status: "warning",
		when: (facts) => (facts.model?.line.pprs ?? 0) > 0,
		title: (facts) =>
			`The pages arrived complete, but the line damaged data: the receiver asked ${timesWord(model(facts).line.pprs)} for parts of a page again (ECM), so the call took longer.`,
		row: () => "arrived after repeats",
	},
	{
		rule: "email-no-attachment",
		status: "failed",
		when: ({ report }) => report.email?.test === "none",
		title: ({ report }) =>
			report.problem === undefined
				? "The email arrived, but with no PDF or TIFF attachment to show."
				: `The email arrived, but there is nothing to show: ${report.problem}`,
		advice: () => [
			"Set the scanner to attach the scan as a PDF (or, for Internet fax, a TIFF-F) rather than send a link.",
			"Check the scanner's largest email size: a scan cut short arrives without its attachment.",
		],
		row: () => "no attachment",
	},
	{
		rule: "not-processable",
		status: "failed",
		when: ({ report }) => report.problem !== undefined,
		title: ({ report }) => `The test arrived, but it cannot be shown: ${report.problem}`,
		advice: ({ model }) =>
			model === null ? ["Send a PDF or TIFF image, unprotected, of at most a few dozen pages."] : [],
		row: () => "document could not be read",
	},
	{
		rule: "email-refused-elsewhere",
		status: "warning",
		when: (facts) => likely(facts) === "refuse",
		title: (facts) =>
			`The test arrived here, but Gmail or Microsoft 365 would likely refuse it: ${email(facts).auth?.why}.`,
		advice: (facts) => email(facts).auth?.advice ?? [],
		row: () => "real recipients would refuse it",
	},
	{
		rule: "tiff-not-t37",
		status: "warning",
		when: ({ report }) => report.email?.test === "tiff",
		title: () =>
			"The TIFF arrived, but it is not marked as an Internet fax (T.37 TIFF-F, application=faxbw).",
		advice: () => [
			"If your device claims T.37, check that it sends the TIFF as image/tiff; application=faxbw.",
		],
		row: () => "TIFF not marked T.37",
	},
	{
		rule: "tiff-not-tiff-f",
		status: "warning",
		when: (facts) => facts.report.email?.test === "t37" && typeof facts.email?.tiffF === "string",
		title: (facts) =>
			`The Internet fax arrived, but its TIFF is not TIFF-F (RFC 3949), which a fax gateway may refuse: ${email(facts).tiffF}.`,
		advice: () => [
			"Set the device to send T.37 in its simple mode: black and white, MH coding, 1728 pixels across, standard or fine resolution.",
		],
		row: () => "not TIFF-F",
	},
	{
		rule: "email-spam-elsewhere",
		status: "warning",
		when: (facts) => likely(facts) === "spam",
		title: (facts) =>
			`The test arrived here, but Gmail or Microsoft 365 would likely file it as spam: ${email(facts).auth?.why}.`,
		advice: (facts) => email(facts).auth?.advice ?? [],
		row: () => "likely spam at real recipients",
	},
	{
		rule: "email-clock",
		status: "warning",
		when: (facts) => (facts.email?.clock ?? null) !== null,
		title: (facts) => `The test arrived complete, but its time is wrong. ${email(facts).clock?.words}`,
		advice: (facts) => [
			email(facts).clock?.timeZone
				? "Set the device's time zone (and daylight saving time) to where it stands."
				: "Set the device's clock from a time server (NTP), so every scan is sorted where it belongs in each mailbox.",
		],
		row: (facts) => (email(facts).clock?.timeZone ? "device's time zone wrong" : "device's clock wrong"),
	},
	{
		rule: "ecm-off",
		status: "good",
		when: (facts) => facts.model?.ecm === false,
		title: (facts) =>
			`All good: ${pagesWord(model(facts).wholePages)} arrived complete, sent without error correction (ECM) at ${numberText(model(facts).speed?.bitsPerSecond ?? 0)} bit/s, and HylaFAX counted no damaged line.`,
		row: () => null,
	},
	{
		rule: "all-good",
		status: "good",
		when: () => true,
		title: (facts) => {
			const { report, model } = facts;
			const pages =
				model?.wholePages ??
				facts.email?.pages?.length ??
				(report.document?.format === "TIFF" ? report.document.pages : null);
			const arrived =
				pages === null
					? "All good: the test arrived complete."
					: `All good: ${pagesWord(pages)} arrived complete.`;
			return `${arrived}${recipientWords(facts)}`;
		},
		row: () => null,
	},
];

/** An email test's model, from its report; null for a fax by phone. */
export function emailModelOf(report: FaxReport): EmailModel | null {
	return report.email === null ? null : emailModel(report.email);
}

/**
 * The verdict of a fax's report: the first rule of VERDICTS that holds;
 * `model` and `email` when the caller built them already.
 */
export function verdictOf(
	report: FaxReport,
	model: CallModel | null = callModel(report),
	email: EmailModel | null = emailModelOf(report),
): Verdict {
	const facts: Facts = { report, model, email };
	const rule = VERDICTS.find((candidate) => candidate.when(facts)) ?? (VERDICTS.at(-1) as Rule);
	// A good verdict advises nothing: a damaged goodbye after the last page did the test no harm.
	const advice =
		rule.status === "good"
			? []
			: (rule.advice?.(facts) ??
				(facts.model === null ? [] : adviceFor(facts.model).map((item) => item.words)));
	return { rule: rule.rule, status: rule.status, title: rule.title(facts), advice, row: rule.row(facts) };
}

/**
 * A fax's outcome in a few words (its verdict's row), from its report as kept
 * (JSON); null when it has none, when it went well, or when it cannot be read.
 */
export function outcomeOfReport(report: string | null): string | null {
	if (report === null) return null;
	try {
		return verdictOf(JSON.parse(report) as FaxReport).row;
	} catch {
		return null;
	}
}
