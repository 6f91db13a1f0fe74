const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;

/**
 * Whether `If-None-Match` names `etag` under the weak comparison that RFC 9110
 * section 13.1.2 prescribes (the `W/` of either side ignored), or is `*`.
 */
export function noneMatchHits(header: string | null, etag: string): boolean {
	if (header === null) return false;
	if (header.trim() === "*") return true;
	const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
	for (const [, tag] of header.matchAll(ENTITY_TAG)) if (tag === opaque) return true;
	return false;
}
