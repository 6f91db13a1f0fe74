import type { Fetch } from "../../lib/wait/poll-list.ts";

/** Mid-second, as a real start usually is, so flooring shows. */
export const T0 = Date.parse("2026-11-21T10:00:05.700Z");

/**
 * A clock that only moves when the client sleeps, as the wall and the
 * monotonic clock, and a record of every sleep.
 */
export function fakeTime(start = T0) {
	const state = { now: start, sleeps: [] as number[] };
	return {
		state,
		clock: () => state.now,
		monotonic: () => state.now,
		sleep: async (ms: number) => {
			state.sleeps.push(ms);
			state.now += ms;
		},
	};
}

export type Answer = Response | Error | (() => Response | Error);

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { "content-type": "application/json; charset=utf-8", ...headers },
	});
}

/** Answers requests in order, repeating the last answer; records what was asked. */
export function scriptedFetch(answers: Answer[]) {
	const requests: { url: string; headers: Headers }[] = [];
	const fetch: Fetch = async (url, init) => {
		requests.push({ url, headers: new Headers(init.headers) });
		const next = answers[Math.min(requests.length, answers.length) - 1];
		const answer = typeof next === "function" ? next() : next;
		if (answer === undefined) throw new Error("no answer scripted");
		if (answer instanceof Error) throw answer;
		// A fresh copy each time, as the last answer may be given again; Bun types clone() as undici's Response.
		return answer.clone() as Response;
	};
	return { fetch, requests };
}

/** A fax as the API lists it. */
export function listedFax(slug: string, receivedAt: string, pageCount: number | null = 1) {
	return {
		slug,
		source: "phone" as const,
		from: "+155*****567",
		received_at: receivedAt,
		page_count: pageCount,
		file_size: pageCount === null ? null : 1000,
		pdf_url: pageCount === null ? null : `https://cdn.test.example/faxes/${slug}.pdf`,
		thumbnail_url: pageCount === null ? null : `https://cdn.test.example/faxes/${slug}-thumb.jpg`,
		view_url: `https://site.test.example/faxtest/${slug}`,
	};
}
