// The verdict at the top of a fax's page: all good, or what went wrong and
// the one or two things to try. ONE table: the first rule that holds gives
// the verdict; each is tested in test/report/verdict.test.ts with a report
// built from a real call's session log or a real email (fixtures/).
const numbers = new Intl.NumberFormat("en");
const numberText = (value: number) => numbers.format(value);

import type { CallReport, FaxReport, SessionReport } from "./report.ts";

export type Verdict = {
	/** Which rule of VERDICTS gave it. */
	rule: string;
	status: "good" | "warning" | "failed";
	/** What happened, in a tester's words. */
	title: string;
	/** What to change: one or two things to try. */
	advice: string[];
};

type Facts = { report: FaxReport; call: CallReport | null; session: SessionReport | null };

type Rule = {
	rule: string;
	status: Verdict["status"];
	when: (facts: Facts) => boolean;
	title: (facts: Facts) => string;
	advice: (facts: Facts) => string[];
};

const ended = (call: CallReport | null) => call !== null && !call.ending.clean && call.ending.reason !== null;
const reasonText = (call: CallReport | null) =>
	call?.ending.reason ? ` HylaFAX said: “${call.ending.reason}”.` : "";
const trained = (call: CallReport | null) =>
	call?.trainings.some((training) => training.ok === true) ?? false;
const lowerSpeed =
	"Set your fax machine to a lower speed (9,600 bit/s; on some machines “overseas mode” or “V.29”): fast V.17 training often fails on VoIP lines.";
const ecmOn =
	"Turn error correction (ECM) on in your fax machine's settings: damaged data is then sent again.";
const pagesWord = (count: number) => `${count} page${count === 1 ? "" : "s"}`;
const resent = (call: CallReport | null) => call?.pages.reduce((sum, page) => sum + page.pprs, 0) ?? 0;
/** A page of which no ECM frame and no line came. */
const nothingCame = (page: CallReport["pages"][number] | undefined) =>
	page !== undefined && page.frames === 0 && (page.lines?.total ?? 0) === 0;
const badLines = (call: CallReport | null) => call?.pages.filter((page) => (page.lines?.bad ?? 0) > 0) ?? [];

/** The rules, most serious first. */
export const VERDICTS: Rule[] = [
	{
		rule: "handshake-failed",
		status: "failed",
		when: ({ call }) => call?.noPage === true && !trained(call),
		title: ({ call }) =>
			`Your fax machine called, but the two machines never agreed how to send: no page arrived.${reasonText(call)}`,
		advice: () => [
			lowerSpeed,
			"On a VoIP line, ask your provider for T.38 or for G.711 without compression.",
		],
	},
	{
		rule: "ended-before-first-page",
		status: "failed",
		when: ({ call }) => call?.noPage === true,
		title: ({ call }) =>
			`The machines agreed how to send, then the call ended before page 1 arrived.${reasonText(call)}`,
		advice: () => [lowerSpeed, "Look at your fax machine's own transmission report for the error it gives."],
	},
	{
		rule: "ended-during-page",
		status: "failed",
		when: ({ call }) => ended(call) && (call?.pages.length ?? 0) > 0,
		title: ({ call }) => {
			const pages = call?.pages ?? [];
			const done = pages.filter((page) => page.answer === "MCF").length;
			const last = pages.at(-1);
			const where =
				last?.answer === "MCF"
					? `after page ${last.page}`
					: `during page ${last?.page}${nothingCame(last) ? " (none of it came: your machine stopped sending)" : ""}`;
			return `The call ended early, ${where}: ${pagesWord(done)} arrived whole.${reasonText(call)}`;
		},
		advice: ({ session }) => (session?.ecm === false ? [ecmOn, lowerSpeed] : [lowerSpeed]),
	},
	{
		rule: "bad-lines",
		status: "warning",
		when: ({ call }) => badLines(call).length > 0,
		title: ({ call }) => {
			const worst = badLines(call).reduce((a, b) => ((a.lines?.bad ?? 0) >= (b.lines?.bad ?? 0) ? a : b));
			return `The pages arrived, but damaged: page ${worst.page} had ${numberText(worst.lines?.bad ?? 0)} bad lines (${worst.lines?.consecutiveBad} in a row), which HylaFAX filled in by repeating the line above.`;
		},
		advice: () => [ecmOn, lowerSpeed],
	},
	{
		rule: "ecm-resent",
		status: "warning",
		when: ({ call }) => resent(call) > 0,
		title: ({ call }) =>
			`The pages arrived complete, but the line damaged data: the receiver asked ${resent(call)} times for parts of a page again (ECM), so the call took longer.`,
		advice: () => [lowerSpeed],
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
	},
	{
		rule: "not-processable",
		status: "failed",
		when: ({ report }) => report.problem !== undefined,
		title: ({ report }) => `The test arrived, but it cannot be shown: ${report.problem}`,
		advice: () => ["Send a PDF or TIFF image, unprotected, of at most a few dozen pages."],
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
	},
	{
		rule: "ecm-off",
		status: "warning",
		when: ({ session }) => session?.ecm === false,
		title: ({ session }) =>
			`All pages arrived, sent without error correction at ${numberText(session?.bitsPerSecond ?? 0)} bit/s: a noisy line would have damaged them unseen.`,
		advice: () => [ecmOn],
	},
	{
		rule: "all-good",
		status: "good",
		when: () => true,
		title: ({ report, call }) => {
			const pages = call?.pages.length ?? (report.document?.format === "TIFF" ? report.document.pages : null);
			return pages === null
				? "All good: the test arrived complete."
				: `All good: ${pagesWord(pages)} arrived complete.`;
		},
		advice: () => [],
	},
];

/** The verdict of a fax's report: the first rule of VERDICTS that holds. */
export function verdictOf(report: FaxReport): Verdict {
	const facts: Facts = { report, call: report.call ?? null, session: report.session };
	const rule = VERDICTS.find((candidate) => candidate.when(facts)) ?? (VERDICTS.at(-1) as Rule);
	return { rule: rule.rule, status: rule.status, title: rule.title(facts), advice: rule.advice(facts) };
}
