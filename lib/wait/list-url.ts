import { formatUtcSeconds } from "../fax/index.ts";

const LIST_LIMIT = "100";

/**
 * The `since` value to send. A string is sent as written, with the API's own
 * meaning: faxes received in a later whole second. A Date is an instant, and the
 * API compares whole seconds only, so plain flooring would lose a fax received
 * later in the instant's own second (start at 10:00:05.7, fax at 10:00:05.9: both
 * are second 05, and the API lists only seconds after 05). The value sent is
 * therefore the second before the instant's: nothing received at or after the
 * instant is missed, at the cost of also matching a fax received less than one
 * second before it.
 */
export function sinceParameter(since: Date | string): string {
	if (typeof since === "string") return since;
	return formatUtcSeconds(Math.floor(since.getTime() / 1000) - 1);
}

export interface ListQuery {
	since: string;
	from?: string;
}

/**
 * GET /api/faxes as docs/API.md advises: a fixed `since` and `limit=100`.
 * URLSearchParams encodes `+` as %2B and spaces, so `+02:00` offsets and numbers
 * like "+1 555 123 4567" reach the server intact.
 */
export function listUrl(baseUrl: string, query: ListQuery): string {
	const params = new URLSearchParams({ since: query.since, limit: LIST_LIMIT });
	if (query.from !== undefined) params.set("from", query.from);
	return `${baseUrl.replace(/\/+$/, "")}/api/faxes?${params}`;
}
