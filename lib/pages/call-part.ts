import type { CallReport, FaxReport } from "../report/index.ts";
import { verdictOf } from "../report/index.ts";
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

const said = (code: string | null) => (code === null ? null : `${code} (${MESSAGES[code] ?? code})`);

function pageText(page: CallReport["pages"][number]): string {
	const parts = [page.time === null ? "did not complete" : `took ${page.time}`];
	if (page.frames > 0)
		parts.push(`${numberText(page.frames)} ECM frames, ${page.pprs} partial page requests (PPR)`);
	if (page.lines !== null) {
		const { total, bad, consecutiveBad } = page.lines;
		parts.push(`${numberText(total)} lines, ${numberText(bad)} bad (${numberText(consecutiveBad)} in a row)`);
	}
	const message = said(page.postPage);
	if (message !== null) parts.push(`your machine said ${message}`);
	const answer = said(page.answer);
	if (answer !== null) parts.push(`we answered ${answer}`);
	return `Page ${page.page}: ${parts.join("; ")}`;
}

/** The call as a short timeline: each line a time and what happened. */
function timeline(call: CallReport): [string, string][] {
	const entries: [string, string][] = [];
	const asked = call.requested.length === 0 ? null : call.requested.join(", ");
	if (asked !== null) entries.push([call.trainings[0]?.at ?? "", `Your machine asked for (DCS): ${asked}`]);
	for (const training of call.trainings) {
		const result = training.ok === null ? "no answer" : training.ok ? "succeeded" : "failed";
		const check = training.tcf === null ? "" : ` (check signal: ${training.tcf})`;
		entries.push([training.at, `Training at ${training.rate}: ${result}${check}`]);
	}
	for (const page of call.pages) entries.push([page.at, pageText(page)]);
	const end = call.ending;
	entries.push([
		end.at ?? "",
		end.clean
			? "Your machine hung up normally (DCN)"
			: `The call ended: ${end.reason ?? "for a reason HylaFAX did not log"}`,
	]);
	return entries;
}

/** The session part of a fax page: the timeline, with HylaFAX's own lines below it. */
export function callPart(call: CallReport): string {
	const items = timeline(call)
		.map(([at, text]) => `<li>${at === "" ? "" : `<time>${escapeHtml(at)}</time> `}${escapeHtml(text)}</li>`)
		.join("\n");
	return `<section aria-labelledby="session-title">
<h2 id="session-title">The call, step by step (T.30)</h2>
<ol id="timeline">
${items}
</ol>
<details><summary>HylaFAX's session log of this call (${call.lines.length} lines, the sender's ID masked)</summary>
<pre id="session-log">${call.lines.map(escapeHtml).join("\n")}</pre>
</details>
</section>`;
}

const STATUS_WORDS = {
	good: "All good",
	warning: "Arrived, with a problem",
	failed: "Did not arrive as sent",
};

/** The verdict at the top of a fax's page, and what to change. */
export function verdictPart(report: FaxReport): string {
	const verdict = verdictOf(report);
	const advice =
		verdict.advice.length === 0
			? ""
			: `\n<p>What to try:</p>\n<ul>\n${verdict.advice.map((item) => `<li>${escapeHtml(item)}</li>`).join("\n")}\n</ul>`;
	return `<section id="verdict" class="verdict-${verdict.status}" data-rule="${verdict.rule}" aria-labelledby="verdict-title">
<h2 id="verdict-title">${STATUS_WORDS[verdict.status]}</h2>
<p>${escapeHtml(verdict.title)}</p>${advice}
</section>`;
}
