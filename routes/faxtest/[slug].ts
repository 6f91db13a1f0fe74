import { type Fax, isSlugShape, retentionCutoff } from "../../lib/fax/index.ts";
import { definePlainRoute, type RouteAnswer } from "../../lib/http/index.ts";
import { faxPage, type HtmlPage, missingFaxPage, removedFaxPage } from "../../lib/pages/index.ts";
import type { FaxReport } from "../../lib/report/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";

function pageAnswer(status: number, page: HtmlPage): RouteAnswer {
	return { status, body: page.html, type: HTML_TYPE, headers: { "content-security-policy": page.policy } };
}

/**
 * GET /faxtest/<slug>: the fax's page, where the default SITE_BASE_URL points,
 * so every `view_url` of a single instance leads somewhere. It shows the fax
 * as the API does (masked sender, same addresses); 404 and 410 pages as the
 * API answers, and the transmission report ingest kept with it (lib/report).
 * Not rate limited: people open it, not scripts.
 */
export const route = definePlainRoute(async ({ params, now }, { faxes, store, sendTo }) => {
	await faxes.settle();
	const slug = params.slug ?? "";
	const found = isSlugShape(slug)
		? faxes.lookup(slug, retentionCutoff(now), now)
		: { state: "missing" as const };
	if (found.state === "found") {
		const report = store.report(slug);
		const fax = JSON.parse(found.answer.text) as Fax;
		return pageAnswer(200, faxPage(fax, report === null ? null : (JSON.parse(report) as FaxReport), sendTo));
	}
	if (found.state === "removed") return pageAnswer(410, removedFaxPage(slug));
	return pageAnswer(404, missingFaxPage(sendTo));
});
