import type { Fax } from "../../lib/fax/index.ts";
import { definePlainRoute } from "../../lib/http/index.ts";
import { type LiveItem, liveFilterOf, livePage } from "../../lib/pages/index.ts";
import { type FaxReport, verdictOf } from "../../lib/report/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";
// The same list the script then waits on: the API's default 24 hours, and its
// most (`/api/faxes?limit=100`), so the page and the API's ETag agree.
const WINDOW_SECONDS = 24 * 3600;
const LIMIT = 100;

/**
 * A listed fax's outcome in a few words, from its report; none when it has
 * none or the database cannot give it now: the list is served from memory,
 * and a database away costs its rows their outcome words, not the page.
 */
function outcomeOf(store: { report(slug: string): string | null }, slug: string): string | null {
	try {
		const report = store.report(slug);
		return report === null ? null : verdictOf(JSON.parse(report) as FaxReport).row;
	} catch {
		return null;
	}
}

/**
 * GET /faxtest: the tests of the last 24 hours, newest first, optionally of
 * one sender (`from`, as the API takes it); live with script. Not rate
 * limited: the page itself is one request, and its script's requests to the
 * API are counted there.
 */
export const route = definePlainRoute(async ({ search, now }, { faxes, store, calls, cdnOrigin, sendTo }) => {
	await faxes.settle();
	const { filter, sender } = liveFilterOf(new URLSearchParams(search).get("from"));
	// The calls before the list: a fax listed between the two reads then shows
	// with its call's entry for this one answer, never with neither.
	const shownCalls = calls.current(sender);
	const answer = faxes.list({ after: now - WINDOW_SECONDS, sender, limit: LIMIT }, now);
	const items = (JSON.parse(answer.text) as Fax[]).map(
		(fax): LiveItem => ({ fax, outcome: outcomeOf(store, fax.slug) }),
	);
	const shown = { items, etag: answer.etag, calls: shownCalls, nowMs: calls.now() };
	const page = livePage(shown, filter, cdnOrigin, sendTo);
	return {
		status: 200,
		body: page.html,
		type: HTML_TYPE,
		headers: { "content-security-policy": page.policy },
	};
});
