import { Type } from "@sinclair/typebox";
import { retentionCutoff } from "../../../lib/fax/retention.ts";
import { isSlugShape } from "../../../lib/fax/slug.ts";
import { defineRoute } from "../../../lib/http/route.ts";

const gone = { status: 410, body: { message: "" } };
const missing = { status: 404, body: { message: "" } };

/** GET /api/faxes/{slug}: the same object as a list element; 410 once removed or expired. */
export const route = defineRoute({
	query: Type.Object({}),
	handle({ params, now }, { store, present }) {
		const slug = params.slug ?? "";
		if (!isSlugShape(slug)) return missing;
		const found = store.lookup(slug, retentionCutoff(now));
		if (found.state === "found") return { status: 200, body: present(found.fax) };
		return found.state === "removed" ? gone : missing;
	},
});
