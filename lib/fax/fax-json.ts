import type { FaxRow } from "./fax-row.ts";
import type { Fax } from "./fax-schema.ts";

const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The JSON text of a fax as the API shows it, remembered by slug. Polling
 * clients ask for the same recent faxes again and again, and a fax never
 * changes once listed: rows are only ever inserted or deleted, slugs are never
 * reused, masking and addresses depend on nothing else. So a remembered text
 * cannot go stale; a deleted fax is simply no longer asked for. The oldest
 * entries go first once `maxEntries` are held.
 */
export function createFaxJson(
	present: (row: FaxRow) => Fax,
	maxEntries = DEFAULT_MAX_ENTRIES,
): (row: FaxRow) => string {
	const texts = new Map<string, string>();
	return (row) => {
		let text = texts.get(row.slug);
		if (text === undefined) {
			text = JSON.stringify(present(row));
			if (texts.size >= maxEntries) {
				const oldest = texts.keys().next().value;
				if (oldest !== undefined) texts.delete(oldest);
			}
			texts.set(row.slug, text);
		}
		return text;
	};
}
