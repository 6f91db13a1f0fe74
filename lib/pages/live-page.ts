import type { SendTo } from "../config.ts";
import type { Fax } from "../fax/index.ts";
import type { ShownCall } from "../live-calls/index.ts";
import { callsPart } from "./calls-part.ts";
import { escapeHtml, type HtmlPage, htmlPage } from "./html.ts";
import { sendToPart } from "./send-to.ts";
import { pagesText, utcText } from "./text.ts";

/** Where the live page's script is served (routes/faxtest/live.js.ts). */
export const LIVE_SCRIPT_PATH = "/faxtest/live.js";

const SOURCES: Record<Fax["source"], string> = { phone: "Fax by phone", email: "Email" };

/** The `from` the page was asked for: never shown as typed (see filterPart). */
export type LiveFilter = { kind: "all" } | { kind: "sender" } | { kind: "invalid"; message: string };

/** A listed fax and its outcome in a few words (the verdict's row), null when all went well. */
export type LiveItem = { fax: Fax; outcome: string | null };

function faxItem({ fax, outcome }: LiveItem): string {
	const view = escapeHtml(fax.view_url);
	const slug = escapeHtml(fax.slug);
	const image =
		fax.thumbnail_url === null
			? `<span class="thumb">No image</span>`
			: `<a class="thumb" href="${view}"><img src="${escapeHtml(fax.thumbnail_url)}" alt="First page of test fax ${slug}" loading="lazy"></a>`;
	const from = fax.from === null ? "Unknown sender" : escapeHtml(fax.from);
	const pages = fax.page_count === null ? "no PDF" : pagesText(fax.page_count);
	const said = outcome === null ? "" : ` · <span class="outcome">${escapeHtml(outcome)}</span>`;
	return `<li data-slug="${slug}">${image}<div class="facts"><a href="${view}"><strong>${slug}</strong></a><br>
<span class="from">${from}</span> · ${SOURCES[fax.source]} · <span class="pages">${pages}</span>${said}<br>
<time datetime="${escapeHtml(fax.received_at)}">${utcText(fax.received_at)}</time><span class="local" hidden></span></div></li>`;
}

/**
 * Which sender the list is narrowed to: as the list itself shows it (masked,
 * from a listed fax), never the text of the address, which anyone could have
 * written to put words on this site.
 */
function filterPart(filter: LiveFilter, faxes: Fax[]): string {
	if (filter.kind === "invalid") return `<p role="alert">${escapeHtml(filter.message)}</p>`;
	if (filter.kind === "all") return "";
	const first = faxes[0];
	const who =
		first === undefined
			? "the sender you entered"
			: first.from === null
				? "faxes that came with no sender ID"
				: `<strong>${escapeHtml(first.from)}</strong>`;
	return `<p id="filter-shown">Showing only the tests of ${who}. <a href="/faxtest">Show all tests</a></p>`;
}

const PRIVACY = `<details>
<summary>What is compared, and where your number goes</summary>
<p>The sender you enter is compared with the full sender of each test as it arrived: the
fax's station ID (TSI) as the sending machine sent it, or the email's From address.
Case, spaces and one leading <code>+</code> do not count; nothing else is ignored, so
enter it exactly as your machine sends it (<code>Unknown</code> shows the faxes that came
with no sender ID).</p>
<p>The comparison happens on this site's server: what you enter is sent to this site only,
inside this page's own connection (encrypted when the address starts with https), never
to anyone else, and this page and the API show every sender masked, as the list below
does. The server does not write it to its logs. With script on, it does not appear in
the page's address, so it stays out of your browser's history; without script, it is in
the address of the page the form opens.</p>
</details>`;

const LIVE_NOTE = `<p class="status" id="status">This list is as of the moment the page was made: reload it
to see newer tests, or turn on script and it updates by itself.</p>`;

/**
 * The live list of the last 24 hours' tests, newest first: readable and
 * filterable without script; with script (LIVE_SCRIPT_PATH) it waits on the
 * public API and shows each new test as it is listed. `etag` is the API's tag
 * of the same list, so the script's first request already waits.
 */
export function livePage(
	list: { items: LiveItem[]; etag: string; calls: ShownCall[]; nowMs: number },
	filter: LiveFilter,
	imageOrigin: string,
	sendTo: SendTo,
): HtmlPage {
	const faxes = list.items.map((item) => item.fax);
	const empty = `<p id="empty"${faxes.length === 0 ? "" : " hidden"}>No test fax in the last 24 hours${filter.kind === "sender" ? " from this sender" : ""} yet.</p>`;
	const body = `<main>
<h1>Test faxes of the last 24 hours</h1>
<p>Send a test fax, by phone or by email, and it shows here within 5 seconds of the end of the call
or of the mail's arrival, newest first. A call by phone shows here while it is received, page by page. Select a test for its page and transmission report.</p>
${sendToPart(sendTo)}
<form method="get" action="/faxtest" id="filter">
<label>Only the tests of this sender
<input name="from" id="from" maxlength="255" autocomplete="off" placeholder="+1 555 123 4567, station ID or email"></label>
<button type="submit">Show</button>
</form>
${filterPart(filter, faxes)}
${PRIVACY}
${LIVE_NOTE}
${empty}
${callsPart(list.calls, list.nowMs)}
<ol class="faxes" id="faxes" data-etag="${escapeHtml(list.etag)}">
${list.items.map(faxItem).join("\n")}
</ol>
</main>
<footer>
<p>Every test fax is public for 30 days after it was received, then removed. Senders are masked.</p>
<p><a href="/docs">API documentation</a></p>
</footer>`;
	return htmlPage("Test faxes of the last 24 hours", body, {
		scriptFile: LIVE_SCRIPT_PATH,
		imageOrigin,
		formToSelf: true,
	});
}
