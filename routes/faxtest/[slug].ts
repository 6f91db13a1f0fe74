import { type Fax, isSlugShape, retentionCutoff } from "../../lib/fax/index.ts";
import { definePlainRoute, type RouteAnswer } from "../../lib/http/index.ts";
import { faxPage, type KeptPage, missingFaxPage, removedFaxPage } from "../../lib/pages/index.ts";
import type { FaxReport } from "../../lib/report/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";

function pageAnswer(status: number, page: KeptPage): RouteAnswer {
	return {
		status,
		body: page.answer,
		type: HTML_TYPE,
		headers: { "content-security-policy": page.policy },
	};
}

/**
 * GET /faxtest/<slug>: the fax's page, where the default SITE_BASE_URL points,
 * so every `view_url` of a single instance leads somewhere. It shows the fax
 * as the API does (masked sender, same addresses); 404 and 410 pages as the
 * API answers, and the transmission report ingest kept with it (lib/report).
 * A listed fax never changes: its page is made once, from one read of its
 * report, and answered from memory after (PageMemory). Not rate limited.
 */
export const route = definePlainRoute(async ({ params, now }, { faxes, store, pages, sendTo }) => {
	await faxes.settle();
	const slug = params.slug ?? "";
	const found = isSlugShape(slug)
		? await faxes.lookup(slug, retentionCutoff(now), now)
		: { state: "missing" as const };
	if (found.state === "removed")
		return pageAnswer(
			410,
			pages.page(`removed/${slug}`, () => removedFaxPage(slug)),
		);
	if (found.state === "missing")
		return pageAnswer(
			404,
			pages.page("missing", () => missingFaxPage(sendTo)),
		);
	const key = `fax/${slug}`;
	const kept = pages.kept(key);
	if (kept !== undefined) return pageAnswer(200, kept);
	const report = await store.report(slug);
	const fax = JSON.parse(found.answer.text) as Fax;
	return pageAnswer(
		200,
		pages.page(key, () => faxPage(fax, report === null ? null : (JSON.parse(report) as FaxReport), sendTo)),
	);
});
