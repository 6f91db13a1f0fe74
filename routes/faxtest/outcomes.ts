import { isSlugShape } from "../../lib/fax/index.ts";
import { definePlainRoute, messageJson } from "../../lib/http/index.ts";

// As many as the live list shows at most.
const MAX_SLUGS = 100;

/**
 * GET /faxtest/outcomes?slugs=fax_a,fax_b: each listed fax's outcome in the
 * words its list row shows (null when all went well, or when it has no
 * report), as memory keeps them (lib/recent): the live page's one request for
 * the rows it adds, however many. A slug memory does not hold is left out.
 * Not part of the API; not rate limited, as it reads nothing but memory.
 */
export const route = definePlainRoute(async ({ search }, { faxes }) => {
	await faxes.settle();
	const text = new URLSearchParams(search).get("slugs") ?? "";
	const slugs = text === "" ? [] : text.split(",");
	if (slugs.length > MAX_SLUGS || !slugs.every(isSlugShape))
		return {
			status: 400,
			body: messageJson(`slugs is a comma-separated list of at most ${MAX_SLUGS} slugs (fax_…)`),
		};
	const outcomes: Record<string, string | null> = {};
	for (const slug of slugs) {
		const outcome = faxes.outcome(slug);
		if (outcome !== undefined) outcomes[slug] = outcome;
	}
	return { status: 200, body: JSON.stringify(outcomes) };
});
