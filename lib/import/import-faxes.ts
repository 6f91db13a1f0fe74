import type { FaxStore } from "../db/index.ts";
import { newSlug } from "../fax/index.ts";
import { checkFaxRecord, type FaxRecord, toFaxRow } from "./fax-record.ts";

export interface ImportSummary {
	imported: number;
	removed: number;
}

export type ImportResult = { ok: true; summary: ImportSummary } | { ok: false; errors: string[] };

/**
 * Imports a parsed JSON document of fax records, all or nothing: every record is
 * checked first and any error leaves the database untouched.
 */
export async function importFaxes(
	store: FaxStore,
	document: unknown,
	nowSeconds: number,
): Promise<ImportResult> {
	if (!Array.isArray(document))
		return { ok: false, errors: ["the file must hold a JSON array of fax records"] };

	const errors: string[] = [];
	const accepted: { record: FaxRecord; slug: string }[] = [];
	const seen = new Set<string>();
	document.forEach((value, index) => {
		const checked = checkFaxRecord(value);
		if (!checked.ok) {
			errors.push(`record ${index}: ${checked.reason}`);
			return;
		}
		const slug = checked.record.slug;
		if (slug !== undefined && (seen.has(slug) || store.slugTaken(slug))) {
			errors.push(`record ${index}: slug: ${slug} is already used; slugs are never reused`);
			return;
		}
		const chosen = slug ?? newSlug();
		seen.add(chosen);
		accepted.push({ record: checked.record, slug: chosen });
	});
	if (errors.length > 0) return { ok: false, errors };

	let removed = 0;
	await store.write((writer) => {
		for (const { record, slug } of accepted) {
			if (record.removed) {
				writer.tombstone(slug, nowSeconds);
				removed++;
			} else {
				writer.insert(toFaxRow(record, slug));
			}
		}
	});
	return { ok: true, summary: { imported: accepted.length - removed, removed } };
}
