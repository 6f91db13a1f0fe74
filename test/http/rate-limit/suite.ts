import { afterEach, describe, expect, test } from "bun:test";
import { faxRecord } from "../../../testkit/fixtures.ts";
import { captureLog, eventsOf, type LogLine } from "../../../testkit/log.ts";
import { type TestServer, useTestServers } from "../../../testkit/server.ts";

/** A rate-limit backend as the HTTP suite sees it: the environment that selects it. */
export interface RateLimitBackend {
	name: string;
	/**
	 * Environment for a server counting in this backend. Every call gives a
	 * store of its own, so tests never see each other's counts; servers given
	 * the same object share one.
	 */
	env(): Record<string, string>;
}

/** The rate-limit side of one answer, compared as a whole so a failure shows every field. */
export interface Answer {
	status: number;
	limit: string | null;
	remaining: string | null;
	retryAfter: string | null;
	reset: string | null;
}

const TOO_MANY = '{"message":"Too Many Attempts."}';
const JSON_TYPE = "application/json; charset=utf-8";
const LIVE = "fax_live1";
const GONE = "fax_gone1";

// The fixtures' pinned clock would put "a minute ago" hours away from the wall
// clock these servers run on (a window test needs real time), so fax times
// are taken from the wall clock too.
function minuteAgo(): string {
	return `${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z`;
}

export function answerOf(response: Response): Answer {
	return {
		status: response.status,
		limit: response.headers.get("x-ratelimit-limit"),
		remaining: response.headers.get("x-ratelimit-remaining"),
		retryAfter: response.headers.get("retry-after"),
		reset: response.headers.get("x-ratelimit-reset"),
	};
}

/** An answer counted and allowed, with `remaining` requests left of `limit`. */
export function allowed(remaining: number, limit = 60, status = 200): Answer {
	return { status, limit: String(limit), remaining: String(remaining), retryAfter: null, reset: null };
}

/** An answer of a path or method that is not counted: no rate-limit header at all. */
export function uncounted(status: number): Answer {
	return { status, limit: null, remaining: null, retryAfter: null, reset: null };
}

export interface Servers {
	/** Starts a server with the given environment; it logs into `logs` and is stopped after the test. */
	start(env: Record<string, string>, logs?: LogLine[]): Promise<TestServer>;
}

/** Servers started by a test are stopped after it, also when it failed. */
export function useServers(): Servers {
	const startServer = useTestServers();
	return {
		start: (env, logs = []) =>
			startServer({
				env,
				faxes: [
					faxRecord({ slug: LIVE, received_at: minuteAgo() }),
					faxRecord({ slug: GONE, received_at: minuteAgo(), removed: true }),
				],
				logger: captureLog("info", logs).logger,
			}),
	};
}

/** Sends a request and reads the whole body, so the connection is free for the next one. */
export async function send(server: TestServer, path: string, init: RequestInit = {}): Promise<Answer> {
	const response = await server.request(path, init);
	await response.arrayBuffer();
	return answerOf(response);
}

export function from(address: string): RequestInit {
	return { headers: { "x-forwarded-for": address } };
}

/**
 * Waits until early in a wall-clock second and returns it (Unix seconds). A
 * window opened now ends early in second + window length, so X-RateLimit-Reset
 * (the end rounded up) is exactly second + window + 1, and a burst shorter than
 * a second sees a Retry-After of exactly the window length.
 */
export async function startOfSecond(): Promise<number> {
	const into = Date.now() % 1000;
	if (into < 5 || into > 150) await Bun.sleep(1005 - into);
	return Math.floor(Date.now() / 1000);
}

export async function sleepUntil(timeMs: number): Promise<void> {
	const left = timeMs - Date.now();
	if (left > 0) await Bun.sleep(left);
}

/** The behaviour every backend must show through the real server. */
export function defineRateLimitSuite(backend: RateLimitBackend): void {
	describe(`rate limit over HTTP, ${backend.name} backend`, () => {
		const servers = useServers();
		let logs: LogLine[] = [];

		// Nothing in this suite disturbs the backend, so any log line but the
		// access lines (a switch to the in-process window above all) means it
		// did not count where it should.
		afterEach(() => {
			const logged = logs;
			logs = [];
			expect(eventsOf(logged)).toEqual([]);
		});

		const start = (env: Record<string, string> = {}) =>
			servers.start({ ...backend.env(), RATE_LIMIT_PER_MINUTE: "60", ...env }, logs);

		test("counts down from 60 and refuses the 61st request with a complete 429", async () => {
			const server = await start();
			await startOfSecond();
			const startedAt = Date.now();
			const answers: Answer[] = [await send(server, "/api/faxes")];
			const firstAnsweredAt = Date.now();
			for (let i = 1; i < 60; i++) answers.push(await send(server, "/api/faxes"));
			const refusing = Date.now();
			const refused = await server.request("/api/faxes");
			const refusedAt = Date.now();

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
		});

		test("the fields of the IETF draft name the policy and count down with the window's end", async () => {
			const server = await start({ RATE_LIMIT_PER_MINUTE: "2", RATE_LIMIT_WINDOW_SECONDS: "5" });
			const fields = async (path: string) => {
				const sentAt = Date.now();
				const response = await server.request(path);
				await response.arrayBuffer();
				const headers = [
					response.status,
					response.headers.get("ratelimit-policy"),
					response.headers.get("ratelimit"),
					response.headers.get("retry-after"),
				];
				return { headers, sentAt, answeredAt: Date.now() };
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
			await sleepUntil(first.answeredAt + 2100);
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
		});

		test("every endpoint answer counts, on one count for both endpoints", async () => {
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
		});

		test("unknown paths, CORS preflights and the 403 are not counted", async () => {
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
		});

		test("a used-up limit refuses every endpoint answer and leaves the uncounted ones alone", async () => {
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
		});

		test("the window opens at the first request, is not extended by later ones, then starts again", async () => {
			const server = await start({ RATE_LIMIT_PER_MINUTE: "3", RATE_LIMIT_WINDOW_SECONDS: "2" });
			const second = await startOfSecond();
			const openedAt = Date.now();
			const first = await send(server, "/api/faxes");
			// A second later: if these requests moved the window's end, the 429
			// would name second + 4 and the request after the end would be refused.
			await sleepUntil(openedAt + 1200);
			const later = [
				await send(server, `/api/faxes/${LIVE}`),
				await send(server, "/api/faxes"),
				await send(server, "/api/faxes"),
			];
			await sleepUntil(openedAt + 2200);
			const renewed = [await send(server, "/api/faxes"), await send(server, "/api/faxes")];

			expect(first).toEqual(allowed(2, 3));
			expect(later).toEqual([
				allowed(1, 3),
				allowed(0, 3),
				{ status: 429, limit: "3", remaining: "0", retryAfter: "1", reset: String(second + 3) },
			]);
			expect(renewed).toEqual([allowed(2, 3), allowed(1, 3)]);
		});

		test("IPv6 clients share a count per /64", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1" });
			const answers = [
				await send(server, "/api/faxes", from("2001:db8:1:2::1")),
				await send(server, "/api/faxes", from("2001:db8:1:2:ffff::9")),
				await send(server, "/api/faxes", from("2001:0DB8:0001:0002:abcd:0:0:1")),
				await send(server, "/api/faxes", from("2001:db8:1:3::1")),
				await send(server, "/api/faxes"),
			];
			expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(59), allowed(59)]);
		});

		test("an IPv4-mapped IPv6 address counts as its IPv4 address", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1" });
			const answers = [
				await send(server, "/api/faxes", from("::ffff:203.0.113.7")),
				await send(server, "/api/faxes", from("203.0.113.7")),
				await send(server, "/api/faxes", from("::ffff:cb00:7107")),
				await send(server, "/api/faxes", from("203.0.113.8")),
			];
			expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(59)]);
		});

		test("every spelling of one IPv4 address, IPv4-compatible and IPv4-mapped, shares one count", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1, ::10.0.0.0/104" });
			const spellings = [
				"203.0.113.7",
				"::203.0.113.7",
				"0:0:0:0:0:0:203.0.113.7",
				"::cb00:7107",
				"::CB00:7107",
				"0000:0000:0000:0000:0000:0000:cb00:7107",
				"[::203.0.113.7]:443",
				"::ffff:203.0.113.7",
				"0:0:0:0:0:ffff:203.0.113.7",
				"::ffff:cb00:7107",
				"[::ffff:cb00:7107]",
				// A trusted proxy written IPv4-compatible in TRUST_PROXY vouches for the client left of it.
				"203.0.113.7, 10.1.2.3",
			];
			const answers = [];
			for (const spelling of spellings) answers.push(await send(server, "/api/faxes", from(spelling)));
			expect(answers).toEqual(spellings.map((_, i) => allowed(59 - i)));
			// The IPv6 loopback and unspecified address are no IPv4 addresses: they stay in ::/64.
			expect(await send(server, "/api/faxes", from("::1"))).toEqual(allowed(59));
			expect(await send(server, "/api/faxes", from("::"))).toEqual(allowed(58));
			expect(await send(server, "/api/faxes", from("::0.0.0.2"))).toEqual(allowed(57));
		});

		test("behind trusted proxies the right-most untrusted X-Forwarded-For entry is the client", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1, 10.0.0.0/8" });
			const answers = [
				await send(server, "/api/faxes", from("198.51.100.1")),
				await send(server, "/api/faxes", from("198.51.100.1, 127.0.0.1")),
				await send(server, "/api/faxes", from("198.51.100.1, 10.1.2.3, 127.0.0.1")),
				// Entries left of the client are the client's own claims: ignored.
				await send(server, "/api/faxes", from("192.0.2.50, 198.51.100.1")),
				await send(server, "/api/faxes", from("198.51.100.2, 127.0.0.1")),
				await send(server, "/api/faxes"),
			];
			expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(56), allowed(59), allowed(59)]);
		});

		test("a port or brackets on an X-Forwarded-For entry share the address's count", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1" });
			const answers = [
				await send(server, "/api/faxes", from("203.0.113.7")),
				await send(server, "/api/faxes", from("203.0.113.7:51234")),
				await send(server, "/api/faxes", from("203.0.113.7:443, 127.0.0.1:8080")),
				await send(server, "/api/faxes", from("2001:db8:1:2::1")),
				await send(server, "/api/faxes", from("[2001:db8:1:2::1]")),
				await send(server, "/api/faxes", from("[2001:db8:1:2::1]:443")),
				await send(server, "/api/faxes"),
			];
			expect(answers).toEqual([
				allowed(59),
				allowed(58),
				allowed(57),
				allowed(59),
				allowed(58),
				allowed(57),
				allowed(59),
			]);
		});

		test("X-Forwarded-For from an untrusted peer is ignored", async () => {
			const server = await start();
			const answers = [
				await send(server, "/api/faxes"),
				await send(server, "/api/faxes", from("198.51.100.1")),
				await send(server, "/api/faxes", from("2001:db8:1:2::1, 198.51.100.1")),
				await send(server, "/api/faxes"),
			];
			expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(56)]);
		});

		test("a malformed X-Forwarded-For entry ends the walk and never fails the request", async () => {
			const server = await start({ TRUST_PROXY: "127.0.0.1" });
			// A malformed entry cannot be keyed, so the hop that passed it on (here
			// the trusted peer itself) is counted: a forged header picks no key.
			const onPeer = [
				"",
				"garbage",
				",,,",
				"198.51.100.1, not-an-ip",
				"999.1.1.1",
				"127.1",
				"0x7f.0.0.1",
				"198.51.100.1:99999",
				"[2001:db8::1",
				"198.51.100.0/24",
				"2001:db8:::1",
				"x".repeat(8000),
				`${Array.from({ length: 500 }, () => "127.0.0.1").join(",")},oops`,
			];
			const malformed = [];
			for (const header of onPeer) malformed.push(await send(server, "/api/faxes", from(header)));
			const peer = await send(server, "/api/faxes");
			// Left of a valid untrusted client, a malformed entry is never reached.
			const client = await send(server, "/api/faxes", from("garbage, 198.51.100.1"));

			expect(malformed).toEqual(onPeer.map((_, i) => allowed(59 - i)));
			expect(peer).toEqual(allowed(59 - onPeer.length));
			expect(client).toEqual(allowed(59));
		});

		test("on a dual-stack listener an IPv4 client is keyed and trusted as its IPv4 address", async () => {
			const server = await start({ HOST: "::", TRUST_PROXY: "127.0.0.1" });
			// Over IPv4 Bun reports the peer as ::ffff:127.0.0.1, over IPv6 as ::1.
			const overIpv6 = async (headers: Record<string, string> = {}) => {
				const response = await fetch(`http://[::1]:${server.port}/api/faxes`, {
					headers: { "user-agent": "testfax-tests/1.0", ...headers },
				});
				await response.arrayBuffer();
				return answerOf(response);
			};
			const answers = [
				await send(server, "/api/faxes"),
				await send(server, "/api/faxes", from("198.51.100.1")),
				await send(server, "/api/faxes"),
				await overIpv6(),
				// ::1 is not trusted, so its X-Forwarded-For is ignored.
				await overIpv6({ "x-forwarded-for": "198.51.100.1" }),
			];
			expect(answers).toEqual([allowed(59), allowed(59), allowed(58), allowed(59), allowed(58)]);
		});
	});
}
