import { Type } from "@sinclair/typebox";
import { isSlugShape, retentionCutoff } from "../../../lib/fax/index.ts";
import { defineEndpoint, EMPTY_MESSAGE } from "../../../lib/http/index.ts";

const gone = { status: 410, body: EMPTY_MESSAGE };
const missing = { status: 404, body: EMPTY_MESSAGE };

/** GET /api/faxes/{slug}: the same object as a list element; 410 once removed or expired. */
export const route = defineEndpoint({
	query: Type.Object({}),
	get({ params, now }, { faxes }) {
		const slug = params.slug ?? "";
		if (!isSlugShape(slug)) return missing;
		const found = faxes.lookup(slug, retentionCutoff(now), now);
		if (found.state === "found") return { status: 200, body: found.json };
		return found.state === "removed" ? gone : missing;
	},
});
