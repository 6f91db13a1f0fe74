// The call's part of a fax page: the verdict at the top, and the timeline of
// the call with HylaFAX's own lines beside it. Both read the one model of the
// call (lib/report/call-model.ts) and the verdict built on it.
import {
	type CallModel,
	type CallStep,
	type EmailModel,
	type FaxReport,
	type PageModel,
	verdictOf,
} from "../report/index.ts";
import { escapeHtml } from "./html.ts";
import { numberText } from "./text.ts";

// The T.30 post-page messages and answers, in words (ITU-T T.30, 5.3.6).
const MESSAGES: Record<string, string> = {
	MPS: "more pages follow",
	EOP: "last page",
	EOM: "another document follows",
	"PRI-MPS": "more pages follow, operator wanted",
	"PRI-EOP": "last page, operator wanted",
	"PRI-EOM": "another document follows, operator wanted",
	MCF: "page good",
	RTN: "page bad, train again",
	RTP: "page good, train again",
	PPR: "parts damaged, send them again",
	PIN: "page bad, operator wanted",
	PIP: "page good, operator wanted",
};

// The handshake's evidence, in words; the sender's DCN and the modem's errors are told by the ending.
const STEP_WORDS: Partial<Record<CallStep["kind"], string>> = {
	"dis-sent": "We answered with what our fax machine can receive (DIS)",
	"dcs-received": "Your machine chose how to send (DCS)",
	"frame-damaged": "A signal from your machine arrived damaged",
	"crp-sent": "We asked your machine to send it again (CRP)",
	"crp-received": "Your machine asked us to send ours again (CRP)",
	timeout: "Nothing came from your machine, and our receiver's wait ran out",
};

// Who ended the call, in words (the reason table's sides); a normal end says so in its own words.
const ENDED_BY: Record<CallModel["ending"]["by"], string> = {
	normal: "",
	sender: "Your machine ended the call. ",
	"receiver-timeout": "Our side ended the call, after waiting for your machine. ",
	line: "The line ended the call. ",
	"receiver-system": "A fault on our side ended the call. ",
	unknown: "Who ended the call is not known. ",
};

/** One line of the timeline: when, what, and HylaFAX's own line for it when there is one. */
type Entry = { at: string; text: string; raw: string | null };

const said = (code: string | null) => (code === null ? null : `${code} (${MESSAGES[code] ?? code})`);

function pageState(page: PageModel): string {
	if (page.state === "whole") return `came whole${page.time === null ? "" : ` in ${page.time}`}`;
	if (page.state === "absent") return "did not complete: none of it came";
	if (page.lines === null) return "did not complete: part of it came";
	const of = page.of === null ? "" : ` of about ${numberText(page.of.lines)} (${page.of.basis})`;
	return `did not complete: ${numberText(page.lines)} lines came${of}`;
}

function pageText(page: PageModel): string {
	const parts = [`Page ${page.page} ${pageState(page)}`];
	if (page.frames > 0)
		parts.push(`${numberText(page.frames)} ECM frames, ${page.pprs} partial page requests (PPR)`);
	if (page.lines !== null && page.state === "whole")
		parts.push(
			`${numberText(page.lines)} lines, ${numberText(page.badLines)} bad (${numberText(page.consecutiveBad)} in a row)`,
		);
	const message = said(page.postPage);
	if (message !== null) parts.push(`your machine said ${message}`);
	const answer = said(page.answer);
	if (answer !== null) parts.push(`we answered ${answer}`);
	return parts.join("; ");
}

/** The steps with words, a run of the same line in a row told once with its count and its last time. */
function stepEntries(call: CallModel): Entry[] {
	const lastDcs = call.steps.findLastIndex((step) => step.kind === "dcs-received");
	const asked = call.requested.length === 0 ? "" : `: ${call.requested.join(", ")}`;
	const entries: (Entry & { times: number; until: string })[] = [];
	call.steps.forEach((step, index) => {
		const words = STEP_WORDS[step.kind];
		if (words === undefined) return;
		const text = index === lastDcs ? `${words}${asked}` : words;
		const previous = entries.at(-1);
		if (previous?.text === text && previous.raw === step.line) {
			previous.times += 1;
			previous.until = step.at;
		} else entries.push({ at: step.at, text, raw: step.line, times: 1, until: step.at });
	});
	return entries.map(({ at, text, raw, times, until }) => ({
		at,
		text: times === 1 ? text : `${text} (${times} times in a row, the last at ${until})`,
		raw,
	}));
}

function trainingEntries(call: CallModel): Entry[] {
	return call.trainings.map((training) => {
		const rate =
			training.bitsPerSecond === null ? "an unknown speed" : `${numberText(training.bitsPerSecond)} bit/s`;
		const modulation = training.modulation === null ? "" : ` (${training.modulation})`;
		const result = training.ok === null ? "no answer" : training.ok ? "succeeded" : "failed";
		const check = training.check === null ? "" : ` (check signal: ${training.check})`;
		return { at: training.at, text: `Training at ${rate}${modulation}: ${result}${check}`, raw: null };
	});
}

/** The call as a timeline: the handshake's evidence, each training and page, and the ending, in time order. */
export function timeline(call: CallModel): Entry[] {
	const entries = [
		...stepEntries(call),
		...trainingEntries(call),
		...call.pages.map((page) => ({ at: page.at, text: pageText(page), raw: null })),
	].sort((a, b) => a.at.localeCompare(b.at));
	const end = call.ending;
	entries.push({ at: end.at ?? "", text: `${ENDED_BY[end.by]}${end.words}`, raw: end.raw });
	return entries;
}

function entryHtml({ at, text, raw }: Entry): string {
	const time = at === "" ? "" : `<time>${escapeHtml(at)}</time> `;
	const line = raw === null ? "" : ` <code class="hylafax">HylaFAX: ${escapeHtml(raw)}</code>`;
	return `<li>${time}${escapeHtml(text)}${line}</li>`;
}

/** The session part of a fax page: the timeline, with HylaFAX's own lines below it. */
export function callPart(report: FaxReport, call: CallModel | null): string {
	if (call === null || !call.logged || report.call === undefined) return "";
	const lines = report.call.lines;
	return `<section aria-labelledby="session-title">
<h2 id="session-title">The call, step by step (T.30)</h2>
<ol id="timeline">
${timeline(call).map(entryHtml).join("\n")}
</ol>
<details><summary>HylaFAX's session log of this call (${lines.length} lines, the sender's ID masked)</summary>
<pre id="session-log">${lines.map(escapeHtml).join("\n")}</pre>
</details>
</section>`;
}

const STATUS_WORDS = {
	good: "All good",
	warning: "Arrived, with a problem",
	failed: "Did not arrive as sent",
};

/** The verdict at the top of a fax's page, and what to change; `data-row` is what its list row says. */
export function verdictPart(report: FaxReport, call: CallModel | null, email: EmailModel | null): string {
	const verdict = verdictOf(report, call, email);
	const advice =
		verdict.advice.length === 0
			? ""
			: `\n<p>What to try:</p>\n<ul>\n${verdict.advice.map((item) => `<li>${escapeHtml(item)}</li>`).join("\n")}\n</ul>`;
	const row = verdict.row === null ? "" : ` data-row="${escapeHtml(verdict.row)}"`;
	return `<section id="verdict" class="verdict-${verdict.status}" data-rule="${verdict.rule}"${row} aria-labelledby="verdict-title">
<h2 id="verdict-title">${STATUS_WORDS[verdict.status]}</h2>
<p>${escapeHtml(verdict.title)}</p>${advice}
</section>`;
}
