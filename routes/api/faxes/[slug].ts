import { Type } from "@sinclair/typebox";
import { FaxSchema, isSlugShape, retentionCutoff, SLUG_PATTERN } from "../../../lib/fax/index.ts";
import { defineEndpoint, EMPTY_MESSAGE, messageBody } from "../../../lib/http/index.ts";

const gone = { status: 410, body: EMPTY_MESSAGE };
const missing = { status: 404, body: EMPTY_MESSAGE };

/** GET /api/faxes/{slug}: the same object as a list element; 410 once removed or expired. */
export const route = defineEndpoint({
	query: Type.Object({}),
	doc: {
		operationId: "getFax",
		summary: "Get one test fax",
		description: "One fax as a bare JSON object, the same as its element in the list.",
		params: {
			slug: Type.String({
				pattern: SLUG_PATTERN.source,
				description: "The fax's ID, its `slug` in the list.",
				examples: ["fax_Ab3dE5gH7jK9"],
			}),
		},
		answers: {
			200: { description: "The fax.", body: FaxSchema },
			404: {
				description: "No fax has this ID (yet): a fax appears only once its processing is done.",
				body: messageBody("", "An empty message."),
			},
			410: {
				description: "The fax was removed: 30 days after it was received, or on request.",
				body: messageBody("", "An empty message."),
			},
		},
	},
	async get({ params, now }, { faxes }) {
		const slug = params.slug ?? "";
		if (!isSlugShape(slug)) return missing;
		await faxes.settle();
		const found = await faxes.lookup(slug, retentionCutoff(now), now);
		if (found.state === "found") return { status: 200, body: found.answer };
		return found.state === "removed" ? gone : missing;
	},
});
