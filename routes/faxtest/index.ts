import type { Fax } from "../../lib/fax/index.ts";
import { definePlainRoute } from "../../lib/http/index.ts";
import { type LiveItem, liveFilterOf, livePage } from "../../lib/pages/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";
// The same list the script then waits on: the API's default 24 hours, and its
// most (`/api/faxes?limit=100`), so the page and the API's ETag agree.
const WINDOW_SECONDS = 24 * 3600;
const LIMIT = 100;

/**
 * GET /faxtest: the tests of the last 24 hours, newest first, optionally of
 * one sender (`from`, as the API takes it); live with script. Made once per
 * state of what it shows (the list's ETag, the calls in progress, the filter;
 * with calls shown, once a second for their silences' seconds) and answered
 * from memory until that changes: each fax's outcome is the one memory keeps
 * with it (lib/recent), so no request reads or judges a fax. Not rate
 * limited: as cheap as the API's answers (docs/decisions.md).
 */
export const route = definePlainRoute(async ({ search, now }, { faxes, calls, pages, cdnOrigin, sendTo }) => {
	// The calls before the list: a fax listed between the two reads then shows
	// with its call's entry for this one answer, never with neither.
	await calls.settle();
	await faxes.settle();
	const { filter, sender } = liveFilterOf(new URLSearchParams(search).get("from"));
	const shownCalls = calls.current(sender);
	const answer = await faxes.list({ after: now - WINDOW_SECONDS, sender, limit: LIMIT }, now);
	const nowMs = calls.now();
	const second = shownCalls.length === 0 ? "" : Math.floor(nowMs / 1000);
	const key = `live/${JSON.stringify(filter)}/${JSON.stringify(sender)}/${answer.etag}/${calls.version()}/${second}`;
	const page = pages.page(key, () => {
		const items = (JSON.parse(answer.text) as Fax[]).map(
			(fax): LiveItem => ({ fax, outcome: faxes.outcome(fax.slug) ?? null }),
		);
		return livePage({ items, etag: answer.etag, calls: shownCalls, nowMs }, filter, cdnOrigin, sendTo);
	});
	return {
		status: 200,
		body: page.answer,
		type: HTML_TYPE,
		headers: { "content-security-policy": page.policy },
	};
});
