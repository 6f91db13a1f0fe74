import type { SendTo } from "../config.ts";
import type { Fax } from "../fax/index.ts";
import { type CallModel, callModel, emailModelOf, type FaxReport } from "../report/index.ts";
import { callPart, verdictPart } from "./call-part.ts";
import { escapeHtml, type HtmlPage, htmlPage, pageScript } from "./html.ts";
import { reportPart } from "./report-part.ts";
import { sendToPart } from "./send-to.ts";
import { pagesText, shortSize, sizeText, utcText } from "./text.ts";

const SOURCES: Record<Fax["source"], string> = {
	phone: "Fax by phone",
	email: "Email (scan-to-email or Internet fax)",
};

// The time in the reader's own zone is an addition: without script the page
// shows UTC, which is all it needs.
const LOCAL_TIME_SCRIPT = pageScript(`
for (const time of document.querySelectorAll("time[data-local]")) {
	const local = document.getElementById(time.dataset.local);
	local.textContent = new Date(time.dateTime).toLocaleString(undefined, {
		year: "numeric", month: "long", day: "numeric",
		hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short",
	});
	local.parentElement.hidden = false;
}
`);

function filesPart(fax: Fax, report: FaxReport | null): string {
	if (
		fax.pdf_url === null ||
		fax.thumbnail_url === null ||
		fax.page_count === null ||
		fax.file_size === null
	) {
		return report?.call?.noPage
			? "<p>No page arrived, so there is no PDF and no image of this call.</p>"
			: "<p>This fax could not be processed: there is no PDF and no image of it.</p>";
	}
	const pdf = escapeHtml(fax.pdf_url);
	return `<figure>
<a href="${pdf}"><img src="${escapeHtml(fax.thumbnail_url)}" width="300" alt="First page of test fax ${escapeHtml(fax.slug)}"></a>
<figcaption>First page. Select it to open the PDF.</figcaption>
</figure>
<p><a href="${pdf}" type="application/pdf">Open the PDF (${pagesText(fax.page_count)}, ${shortSize(fax.file_size)})</a></p>`;
}

/** The Pages and Size rows: what the PDF holds, and how many pages of the call came whole, as the verdict counts them. */
function countRows(fax: Fax, report: FaxReport | null, call: CallModel | null): string {
	if (fax.page_count === null || fax.file_size === null) {
		const why = report?.call?.noPage
			? "None: no page arrived"
			: report?.email?.test === "none"
				? "None: the email had no attachment to show"
				: "Not known: the document could not be read";
		return `<dt>Pages</dt><dd>${why}</dd>\n<dt>Size</dt><dd>No PDF</dd>`;
	}
	const whole =
		call?.logged && (call.failure !== "none" || call.wholePages !== fax.page_count)
			? ` in the PDF (${call.wholePages} arrived whole)`
			: "";
	return `<dt>Pages</dt><dd>${fax.page_count}${whole}</dd>\n<dt>Size</dt><dd>${sizeText(fax.file_size)}</dd>`;
}

/**
 * The page of one fax: what the API says of it, for people, readable without
 * script; with its transmission report when ingest kept one.
 */
export function faxPage(fax: Fax, report: FaxReport | null, sendTo: SendTo): HtmlPage {
	// Built once: the verdict, the rows and the timeline all read them.
	const call = report === null ? null : callModel(report);
	const email = report === null ? null : emailModelOf(report);
	const sender = fax.from === null ? "Unknown (the fax came with no sender ID)" : escapeHtml(fax.from);
	const body = `<main>
<h1>Test fax ${escapeHtml(fax.slug)}</h1>
${report === null ? "" : verdictPart(report, call, email)}
<dl>
<dt>Sender</dt><dd>${sender}</dd>
<dt>Source</dt><dd>${SOURCES[fax.source]}</dd>
<dt>Received</dt><dd><time datetime="${escapeHtml(fax.received_at)}" data-local="local-time">${utcText(fax.received_at)}</time><span hidden><br>Your time: <span id="local-time"></span></span></dd>
${countRows(fax, report, call)}
</dl>
${filesPart(fax, report)}
${report === null ? "" : reportPart(report, fax.from, email)}
${report === null ? "" : callPart(report, call)}
${sendToPart(sendTo)}
</main>
<footer>
<p>Every test fax is public for 30 days after it was received, then removed. The sender is masked.</p>
<p><a href="/api/faxes/${escapeHtml(fax.slug)}">This fax as JSON</a> · <a href="/docs">API documentation</a></p>
</footer>`;
	return htmlPage(`Test fax ${fax.slug}, received ${utcText(fax.received_at)}`, body, {
		script: LOCAL_TIME_SCRIPT,
		imageOrigin: fax.thumbnail_url === null ? undefined : new URL(fax.thumbnail_url).origin,
	});
}

/** Where the 404 and 410 pages lead: the live list, and the API's description. */
const WAY_BACK =
	'<p><a href="/faxtest">All tests of the last 24 hours</a> · <a href="/docs">API documentation</a></p>';

/**
 * The page of an address no fax has (yet). It does not repeat the address: a
 * page that shows any text put in a link would let the link's author write on
 * this site (content spoofing).
 */
export function missingFaxPage(sendTo: SendTo): HtmlPage {
	return htmlPage(
		"No such test fax",
		`<main>
<h1>No such test fax</h1>
<p>No test fax has this address. A fax shows here only once its processing is
done, within 5 seconds of the end of the call or of the mail's arrival: try again shortly.</p>
${WAY_BACK}
${sendToPart(sendTo)}
</main>`,
	);
}

/** The page of a fax that was removed. */
export function removedFaxPage(slug: string): HtmlPage {
	return htmlPage(
		"Test fax removed",
		`<main>
<h1>Test fax removed</h1>
<p>The test fax <code>${escapeHtml(slug)}</code> was removed: test faxes are public for 30 days after they
are received, and can be removed on request before that.</p>
${WAY_BACK}
</main>`,
	);
}
