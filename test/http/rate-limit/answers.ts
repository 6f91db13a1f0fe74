// The requests and answers the rate-limit HTTP suites send and compare.
import { faxRecord } from "../../../testkit/fixtures.ts";
import { captureLog, type LogLine } from "../../../testkit/log.ts";
import { type TestServer, useTestServers } from "../../../testkit/server.ts";
import { SteppedTime } from "../../../testkit/stepped-time.ts";

/** The rate-limit side of one answer, compared as a whole so a failure shows every field. */
export interface Answer {
	status: number;
	limit: string | null;
	remaining: string | null;
	retryAfter: string | null;
	reset: string | null;
}

export const TOO_MANY = '{"message":"Too Many Attempts."}';
export const JSON_TYPE = "application/json; charset=utf-8";
export const LIVE = "fax_live1";
export const GONE = "fax_gone1";

/** Starts a server counting in the suite's backend, with these settings on top. */
export type Start = (env?: Record<string, string>) => Promise<TestServer>;

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
	/**
	 * Starts a server with the given environment, on `time` if given; it logs
	 * into `logs` and is stopped after the test.
	 */
	start(env: Record<string, string>, logs?: LogLine[], time?: SteppedTime): Promise<TestServer>;
}

/** Servers started by a test are stopped after it, also when it failed. */
export function useServers(): Servers {
	const startServer = useTestServers();
	return {
		start: (env, logs = [], time = undefined) =>
			startServer({
				env,
				time,
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

/** The time a window test reads and waits on: the server's own. */
export interface SuiteClock {
	now(): number;
	sleepUntil(timeMs: number): Promise<void>;
	/** Early in a second of this time (startOfSecond); Unix seconds. */
	startOfSecond(): Promise<number>;
	/** The server's time, when the test steps it; real time otherwise. */
	stepped?: SteppedTime;
}

/** Real time: a Redis key's window ends by Redis's own clock, which no test steps. */
export function realSuiteClock(): SuiteClock {
	return { now: Date.now, sleepUntil, startOfSecond };
}

/**
 * A stepped time for the in-process window: the server's monotonic and wall
 * clocks move only when the test waits, so every bound of a window test is
 * exact and a 2 s window costs no real second. It starts 50 ms into a second.
 */
export function steppedSuiteClock(): SuiteClock {
	const time = new SteppedTime(Math.floor(Date.now() / 1000) * 1000 + 50);
	return {
		stepped: time,
		now: time.now,
		sleepUntil: async (timeMs) => time.advance(Math.max(0, timeMs - time.now())),
		startOfSecond: async () => Math.floor(time.now() / 1000),
	};
}
