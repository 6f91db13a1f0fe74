import { type Fax, isSlugShape, retentionCutoff } from "../../lib/fax/index.ts";
import { definePlainRoute } from "../../lib/http/index.ts";
import { faxPage, missingFaxPage, removedFaxPage } from "../../lib/pages/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";

/**
 * GET /faxtest/<slug>: the fax's page, where the default SITE_BASE_URL points,
 * so every `view_url` of a single instance leads somewhere. It shows the fax
 * as the API does (masked sender, same addresses); 404 and 410 pages as the
 * API answers. Not rate limited: people open it, not scripts.
 */
export const route = definePlainRoute(({ params, now }, { faxes }) => {
	const slug = params.slug ?? "";
	const found = isSlugShape(slug)
		? faxes.lookup(slug, retentionCutoff(now), now)
		: { state: "missing" as const };
	if (found.state === "found") {
		return { status: 200, body: faxPage(JSON.parse(found.answer.text) as Fax), type: HTML_TYPE };
	}
	if (found.state === "removed") return { status: 410, body: removedFaxPage(slug), type: HTML_TYPE };
	return { status: 404, body: missingFaxPage(slug), type: HTML_TYPE };
});
