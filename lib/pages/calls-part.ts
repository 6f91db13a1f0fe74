// The calls being received now, at the top of /faxtest: each says how far it
// has come (lib/report/live-progress.ts, written by its feed), the sender
// masked, the caller's number never. The page's script (live.js) builds the
// same markup from the stream of /faxtest/calls and counts a silence's seconds.
import type { ShownCall } from "../live-calls/index.ts";
import { SILENT_AFTER_SECONDS } from "../report/index.ts";
import { escapeHtml } from "./html.ts";

/** The sender's silence in words, once it lasts SILENT_AFTER_SECONDS; "" before or when it cannot be told. */
function silenceText(call: ShownCall, nowMs: number): string {
	const { heardAt, silenceTold } = call.view;
	if (!silenceTold || heardAt === null) return "";
	const seconds = Math.floor((nowMs - heardAt) / 1000);
	if (seconds < SILENT_AFTER_SECONDS) return "";
	return `Your machine has gone silent: nothing from it for ${seconds} s. Our receiver waits for it until its own time limit, then ends the call.`;
}

/** One call in progress, as the list shows it. */
function callItem(call: ShownCall, nowMs: number): string {
	const from = call.from === null ? "Sender not known yet" : escapeHtml(call.from);
	const done = call.view.done.map((step) => `<li>${escapeHtml(step.text)}</li>`).join("");
	const silence = silenceText(call, nowMs);
	const heard =
		call.view.silenceTold && call.view.heardAt !== null ? ` data-heard="${call.view.heardAt}"` : "";
	return `<li class="call" data-call="${escapeHtml(call.key)}"${heard}><span class="thumb">Receiving</span><div class="facts"><strong>Call in progress</strong><br>
<span class="from">${from}</span> · Fax by phone<br>
<span class="now">${escapeHtml(call.view.now)}</span> <span class="silence" role="status">${escapeHtml(silence)}</span>
<ol class="done">${done}</ol></div></li>`;
}

/** The list of calls in progress; empty (and hidden) when there is none. */
export function callsPart(calls: ShownCall[], nowMs: number): string {
	const items = calls.map((call) => callItem(call, nowMs)).join("\n");
	return `<ol class="faxes calls" id="calls" aria-label="Calls being received now" data-silent-after="${SILENT_AFTER_SECONDS}"${calls.length === 0 ? " hidden" : ""}>
${items}
</ol>`;
}
