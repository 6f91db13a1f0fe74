import type { Route } from "../../lib/http/index.ts";
import { messageJson } from "../../lib/http/index.ts";
import { liveFilterOf } from "../../lib/pages/index.ts";

const STREAM_TYPE = "text/event-stream; charset=utf-8";
const DEFAULT_SECONDS = 25;
const MAX_SECONDS = 30;
// nginx would hold a proxied stream's events until it ends (X-Accel-Buffering);
// a stream is never stored (Cache-Control).
const STREAM_HEADERS = { "cache-control": "no-store", "x-accel-buffering": "no" };

function secondsOf(text: string | null): number | null {
	if (text === null) return DEFAULT_SECONDS;
	if (!/^\d{1,2}$/.test(text)) return null;
	const seconds = Number(text);
	return seconds > MAX_SECONDS ? null : seconds;
}

/**
 * GET /faxtest/calls: the calls being received now, as /faxtest shows them,
 * streamed as server-sent events for `wait` seconds (default 25, at most 30):
 * one event at once, then one at each change, each `{"now": ms, "calls":
 * [...]}`; `from` selects as on /faxtest. The page's script (live.js) reads
 * it; counted by the shared rate limit like the page's API requests, once
 * per stream. Nothing of it is part of the API.
 */
export const route: Route = {
	listener: "public",
	rateLimited: true,
	async get({ search, hold }, { calls, callStreams }) {
		const params = new URLSearchParams(search);
		const seconds = secondsOf(params.get("wait"));
		if (seconds === null)
			return { status: 422, body: messageJson(`wait is a whole number of seconds from 0 to ${MAX_SECONDS}`) };
		const { sender } = liveFilterOf(params.get("from"));
		if (hold === undefined) return { status: 200, body: "", type: STREAM_TYPE, headers: STREAM_HEADERS };
		// Its first event carries the calls as the last commit left them.
		await calls.settle();
		return {
			status: 200,
			body: callStreams.open(sender, hold(), seconds),
			type: STREAM_TYPE,
			headers: STREAM_HEADERS,
		};
	},
};
