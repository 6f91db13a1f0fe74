/** A fax held in memory: what it is ordered and matched by, its JSON text and its outcome's words. */
export interface Entry {
	id: number;
	/** Unix seconds. */
	receivedAt: number;
	slug: string;
	senderKey: string | null;
	json: string;
	/** Its outcome in a few words (the verdict's row); null when it went well or has no report. */
	outcome: string | null;
}

/** Oldest first: by received_at, ties by insertion; the list answer is this order backwards. */
export function isBefore(a: Entry, b: Entry): boolean {
	return a.receivedAt < b.receivedAt || (a.receivedAt === b.receivedAt && a.id < b.id);
}

/** The index of the first entry received after `after` (Unix seconds); the length when there is none. */
export function firstAfter(entries: readonly Entry[], after: number): number {
	let low = 0;
	let high = entries.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if ((entries[middle] as Entry).receivedAt > after) high = middle;
		else low = middle + 1;
	}
	return low;
}

/**
 * Merges `batch` (oldest first) into `entries` (oldest first) and returns the
 * result. New faxes are nearly always the newest, so the common case appends
 * in place; a late one (a long fax, an import of old records) costs one merge.
 */
export function mergeEntries(entries: Entry[], batch: readonly Entry[]): Entry[] {
	const first = batch[0];
	if (first === undefined) return entries;
	const last = entries[entries.length - 1];
	if (last === undefined || isBefore(last, first)) {
		for (const entry of batch) entries.push(entry);
		return entries;
	}
	const merged: Entry[] = [];
	let i = 0;
	let j = 0;
	while (i < entries.length && j < batch.length) {
		const a = entries[i] as Entry;
		const b = batch[j] as Entry;
		if (isBefore(a, b)) {
			merged.push(a);
			i++;
		} else {
			merged.push(b);
			j++;
		}
	}
	while (i < entries.length) merged.push(entries[i++] as Entry);
	while (j < batch.length) merged.push(batch[j++] as Entry);
	return merged;
}

/**
 * The JSON array of the newest `limit` entries received after `after`, newest
 * first; null when fewer than `limit` are held and `complete` is false, that is
 * when older faxes not held here could belong to the answer.
 */
export function newestJson(
	entries: readonly Entry[] | undefined,
	after: number,
	limit: number,
	complete: boolean,
): string | null {
	if (entries === undefined) return complete ? "[]" : null;
	const end = entries.length;
	const start = Math.max(firstAfter(entries, after), end - limit);
	if (end - start < limit && !complete) return null;
	if (start === end) return "[]";
	let body = `[${(entries[end - 1] as Entry).json}`;
	for (let i = end - 2; i >= start; i--) body += `,${(entries[i] as Entry).json}`;
	return `${body}]`;
}
