import { afterEach, describe, expect, test } from "bun:test";
import { eventsOf, type LogLine } from "../../../testkit/log.ts";
import type { SteppedTime } from "../../../testkit/stepped-time.ts";
import { type Start, type SuiteClock, useServers } from "./answers.ts";
import * as clientKeys from "./client-key-cases.ts";
import * as counting from "./counting-cases.ts";

/** A rate-limit backend as the HTTP suite sees it: the environment that selects it. */
export interface RateLimitBackend {
	name: string;
	/**
	 * Environment for a server counting in this backend. Every call gives a
	 * store of its own, so tests never see each other's counts; servers given
	 * the same object share one.
	 */
	env(): Record<string, string>;
	/** A new time for one window test's server: stepped where the backend's window runs on the server's clock. */
	clock(): SuiteClock;
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

		const start = (env: Record<string, string> = {}, time?: SteppedTime) =>
			servers.start({ ...backend.env(), RATE_LIMIT_PER_MINUTE: "60", ...env }, logs, time);
		/** The case with a server on a time of its own, which the case reads and waits on. */
		const timed = (run: (start: Start, clock: SuiteClock) => Promise<void>) => () => {
			const clock = backend.clock();
			return run((env) => start(env, clock.stepped), clock);
		};

		test(
			"counts down from 60 and refuses the 61st request with a complete 429",
			timed(counting.countsDownAndRefuses),
		);
		test(
			"the fields of the IETF draft name the policy and count down with the window's end",
			timed(counting.namesThePolicyAndWindowEnd),
		);
		test("every endpoint answer counts, on one count for both endpoints", () =>
			counting.countsEveryEndpointAnswer(start));
		test("unknown paths, CORS preflights and the 403 are not counted", () =>
			counting.leavesOthersUncounted(start));
		test("a used-up limit refuses every endpoint answer and leaves the uncounted ones alone", () =>
			counting.refusesWhenUsedUp(start));
		test(
			"the window opens at the first request, is not extended by later ones, then starts again",
			timed(counting.keepsAFixedWindow),
		);
		test("IPv6 clients share a count per /64", () => clientKeys.sharesIpv6Slash64(start));
		test("an IPv4-mapped IPv6 address counts as its IPv4 address", () =>
			clientKeys.keysMappedIpv6AsIpv4(start));
		test("every spelling of one IPv4 address, IPv4-compatible and IPv4-mapped, shares one count", () =>
			clientKeys.sharesEveryIpv4Spelling(start));
		test("behind trusted proxies the right-most untrusted X-Forwarded-For entry is the client", () =>
			clientKeys.takesRightmostUntrustedEntry(start));
		test("a port or brackets on an X-Forwarded-For entry share the address's count", () =>
			clientKeys.ignoresPortsAndBrackets(start));
		test("X-Forwarded-For from an untrusted peer is ignored", () =>
			clientKeys.ignoresUntrustedForwardedFor(start));
		test("a malformed X-Forwarded-For entry ends the walk and never fails the request", () =>
			clientKeys.stopsAtMalformedEntry(start));
		test("on a dual-stack listener an IPv4 client is keyed and trusted as its IPv4 address", () =>
			clientKeys.keysDualStackIpv4(start));
	});
}
