import { expect } from "bun:test";
import {
	type Answer,
	allowed,
	answerOf,
	GONE,
	JSON_TYPE,
	LIVE,
	type Start,
	type SuiteClock,
	send,
	TOO_MANY,
	uncounted,
} from "./answers.ts";

// What counts, what each answer says, and how the window moves: run by defineRateLimitSuite on every backend.

export async function countsDownAndRefuses(start: Start, clock: SuiteClock): Promise<void> {
	const server = await start();
	await clock.startOfSecond();
	const startedAt = clock.now();
	const answers: Answer[] = [await send(server, "/api/faxes")];
	const firstAnsweredAt = clock.now();
	for (let i = 1; i < 60; i++) answers.push(await send(server, "/api/faxes"));
	const refusing = clock.now();
	const refused = await server.request("/api/faxes");
	const refusedAt = clock.now();

	expect(answers).toEqual(Array.from({ length: 60 }, (_, i) => allowed(59 - i)));
	expect(answerOf(refused)).toMatchObject({ status: 429, limit: "60", remaining: "0" });
	// The window opened between startedAt and firstAnsweredAt and ends 60 s later;
	// on a quick burst early in a second both bounds meet: Retry-After 60, Reset second + 61.
	const [earliestEnd, latestEnd] = [startedAt + 60_000, firstAnsweredAt + 60_000];
	const { retryAfter, reset } = answerOf(refused);
	expect(Number(reset)).toBeWithin(Math.ceil(earliestEnd / 1000), Math.ceil(latestEnd / 1000) + 1);
	expect(Number(retryAfter)).toBeWithin(
		Math.ceil((earliestEnd - refusedAt) / 1000),
		Math.ceil((latestEnd - refusing) / 1000) + 1,
	);
	expect(refused.headers.get("content-type")).toBe(JSON_TYPE);
	expect(refused.headers.get("cache-control")).toBe("no-store, private");
	expect(refused.headers.get("access-control-allow-origin")).toBe("*");
	expect(refused.headers.get("access-control-expose-headers")).toBe(
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag",
	);
	expect(await refused.text()).toBe(TOO_MANY);
}

export async function namesThePolicyAndWindowEnd(start: Start, clock: SuiteClock): Promise<void> {
	const server = await start({ RATE_LIMIT_PER_MINUTE: "2", RATE_LIMIT_WINDOW_SECONDS: "5" });
	const fields = async (path: string) => {
		const sentAt = clock.now();
		const response = await server.request(path);
		await response.arrayBuffer();
		const headers = [
			response.status,
			response.headers.get("ratelimit-policy"),
			response.headers.get("ratelimit"),
			response.headers.get("retry-after"),
		];
		return { headers, sentAt, answeredAt: clock.now() };
	};
	type Timed = Awaited<ReturnType<typeof fields>>;
	// The window opens while the first request is counted; `t` is the whole
	// seconds left of it when a later one is. On a loaded machine either
	// moment may slip, so `t` may be any value those bounds allow.
	const secondsLeft = (opened: Timed, at: Timed): string[] => {
		const least = Math.ceil((5000 - (at.answeredAt - opened.sentAt)) / 1000);
		const most = Math.ceil((5000 - (at.sentAt - opened.answeredAt)) / 1000);
		return Array.from({ length: most - least + 1 }, (_, i) => String(least + i));
	};
	const first = await fields("/api/faxes");
	await clock.sleepUntil(first.answeredAt + 2100);
	const second = await fields(`/api/faxes/${GONE}`);
	const refused = await fields("/api/faxes");
	const uncountedPath = await fields("/nope");

	expect(first.headers).toEqual([200, '"default";q=2;w=5', '"default";r=1;t=5', null]);
	const [, secondPolicy, secondField] = second.headers;
	expect([secondPolicy, secondField]).toEqual([
		'"default";q=2;w=5',
		expect.stringMatching(/^"default";r=0;t=\d+$/),
	]);
	expect(secondsLeft(first, second)).toContain(String(secondField).replace(/^.*;t=/, ""));
	const [status, policy, field, retryAfter] = refused.headers;
	expect([status, policy, field]).toEqual([429, '"default";q=2;w=5', `"default";r=0;t=${retryAfter}`]);
	// Retry-After and t name the same end of the window.
	expect(secondsLeft(first, refused)).toContain(String(retryAfter));
	expect(uncountedPath.headers).toEqual([404, null, null, null]);
}

export async function countsEveryEndpointAnswer(start: Start): Promise<void> {
	const server = await start();
	const answers = [
		await send(server, "/api/faxes"),
		await send(server, `/api/faxes/${LIVE}`),
		await send(server, "/api/faxes/fax_none1"),
		await send(server, `/api/faxes/${GONE}`),
		await send(server, "/api/faxes?limit=0"),
		await send(server, "/api/faxes?since=2026-11-21"),
		await send(server, "/api/faxes", { method: "POST" }),
		await send(server, `/api/faxes/${LIVE}`, { method: "DELETE" }),
		// Without Access-Control-Request-Method an OPTIONS is no preflight but a 405.
		await send(server, "/api/faxes", { method: "OPTIONS" }),
		await send(server, `/api/faxes/${LIVE}`, { method: "HEAD" }),
	];
	expect(answers).toEqual([
		allowed(59),
		allowed(58),
		allowed(57, 60, 404),
		allowed(56, 60, 410),
		allowed(55, 60, 422),
		allowed(54, 60, 422),
		allowed(53, 60, 405),
		allowed(52, 60, 405),
		allowed(51, 60, 405),
		allowed(50),
	]);
}

export async function leavesOthersUncounted(start: Start): Promise<void> {
	const server = await start();
	const preflight = { method: "OPTIONS", headers: { "access-control-request-method": "GET" } };
	const python = { headers: { "user-agent": "Python-urllib/3.11" } };
	const answers = [
		await send(server, "/api/faxes"),
		await send(server, "/"),
		await send(server, "/api/faxes/fax_live1/pdf"),
		await send(server, "/nope", { method: "POST" }),
		await send(server, "/api/faxes", preflight),
		await send(server, `/api/faxes/${LIVE}`, preflight),
		await send(server, "/api/faxes", python),
		await send(server, `/api/faxes/${LIVE}`, python),
		await send(server, `/api/faxes/${LIVE}`),
	];
	expect(answers).toEqual([
		allowed(59),
		uncounted(404),
		uncounted(404),
		uncounted(404),
		uncounted(204),
		uncounted(204),
		uncounted(403),
		uncounted(403),
		allowed(58),
	]);
}

export async function refusesWhenUsedUp(start: Start): Promise<void> {
	const server = await start({ RATE_LIMIT_PER_MINUTE: "1" });
	const first = await send(server, "/api/faxes");
	const refused = [
		await send(server, "/api/faxes"),
		await send(server, `/api/faxes/${LIVE}`),
		await send(server, `/api/faxes/${GONE}`),
		await send(server, "/api/faxes?limit=0"),
		await send(server, "/api/faxes", { method: "POST" }),
	];
	const others = [
		await send(server, "/nope"),
		await send(server, "/api/faxes", {
			method: "OPTIONS",
			headers: { "access-control-request-method": "GET" },
		}),
		await send(server, "/api/faxes", { headers: { "user-agent": "Python-urllib/3.11" } }),
	];
	expect(first).toEqual(allowed(0, 1));
	expect(refused.map(({ status, limit, remaining }) => ({ status, limit, remaining }))).toEqual(
		Array.from({ length: 5 }, () => ({ status: 429, limit: "1", remaining: "0" })),
	);
	// Refused requests do not move the window: every 429 names the same end.
	expect(new Set(refused.map((answer) => answer.reset)).size).toBe(1);
	expect(others).toEqual([uncounted(404), uncounted(204), uncounted(403)]);
}

export async function keepsAFixedWindow(start: Start, clock: SuiteClock): Promise<void> {
	const server = await start({ RATE_LIMIT_PER_MINUTE: "3", RATE_LIMIT_WINDOW_SECONDS: "2" });
	const second = await clock.startOfSecond();
	const openedAt = clock.now();
	const first = await send(server, "/api/faxes");
	// A second later: if these requests moved the window's end, the 429
	// would name second + 4 and the request after the end would be refused.
	await clock.sleepUntil(openedAt + 1200);
	const later = [
		await send(server, `/api/faxes/${LIVE}`),
		await send(server, "/api/faxes"),
		await send(server, "/api/faxes"),
	];
	await clock.sleepUntil(openedAt + 2200);
	const renewed = [await send(server, "/api/faxes"), await send(server, "/api/faxes")];

	expect(first).toEqual(allowed(2, 3));
	expect(later).toEqual([
		allowed(1, 3),
		allowed(0, 3),
		{ status: 429, limit: "3", remaining: "0", retryAfter: "1", reset: String(second + 3) },
	]);
	expect(renewed).toEqual([allowed(2, 3), allowed(1, 3)]);
}
