import { Type } from "@sinclair/typebox";
import { isSlugShape, retentionCutoff } from "../../../lib/fax/index.ts";
import { defineEndpoint, EMPTY_MESSAGE } from "../../../lib/http/index.ts";

const gone = { status: 410, body: EMPTY_MESSAGE };
const missing = { status: 404, body: EMPTY_MESSAGE };

/** GET /api/faxes/{slug}: the same object as a list element; 410 once removed or expired. */
export const route = defineEndpoint({
	query: Type.Object({}),
	get({ params, now }, { store, faxJson }) {
		const slug = params.slug ?? "";
		if (!isSlugShape(slug)) return missing;
		const found = store.lookup(slug, retentionCutoff(now));
		if (found.state === "found") return { status: 200, body: faxJson(found.fax) };
		return found.state === "removed" ? gone : missing;
	},
});
