import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { useTestServers } from "../../testkit/server.ts";
import { spawnWatched } from "../../testkit/watched-process.ts";
import { closedPort, faxRecord, importWhileRunning, servedFax } from "../wait/server-fixtures.ts";

// In real time: the scripts are Python and POSIX sh processes with their own
// sleep and clock, as a user runs them; what is under test is how they pace
// their polls, wait out a 429 and keep their time limit.
const ROOT = join(import.meta.dir, "../..");
const SENDER = "+1 555 123 4567";

interface Script {
	file: string;
	command: string[];
	/** The poll interval of these tests; strict POSIX sleep takes whole seconds. */
	interval: string;
	/** The start of each line on standard error. */
	name: string;
}

const SCRIPTS: Script[] = [
	{
		file: "examples/wait_for_fax.py",
		command: ["python3", "examples/wait_for_fax.py"],
		interval: "0.2",
		name: "wait_for_fax",
	},
	{
		file: "examples/wait-for-fax.sh",
		command: ["sh", "examples/wait-for-fax.sh"],
		interval: "1",
		name: "wait-for-fax",
	},
];

/** A script running as a user runs it. */
function run(script: Script, args: string[]) {
	return spawnWatched([...script.command, ...args], { cwd: ROOT, env: childEnv() });
}

for (const script of SCRIPTS) {
	describe(script.file, () => {
		const start = useTestServers();

		test("finds the fax imported while it waits, and not an older one of the same sender", async () => {
			const server = await start({ faxes: [faxRecord("fax_before", "+15551234567", Date.now() - 120_000)] });
			const waiting = run(script, [
				"--base-url",
				server.baseUrl,
				"--from",
				SENDER,
				"--interval",
				script.interval,
				"--timeout",
				"20",
			]);
			// Sent only once the script has noted its `since`, as a user would.
			await waiting.printed(/waiting up to 20 s for a fax received after \S+: send it now\n/);
			await importWhileRunning(server, [faxRecord("fax_during", "+15551234567", Date.now())]);
			const { code, stdout, lines } = await waiting.result();

			expect(stdout).toBe(`${JSON.stringify(await servedFax(server, "fax_during"))}\n`);
			expect(code).toBe(0);
			expect(lines.at(-1)).toMatch(new RegExp(`^${script.name}: found fax_during after \\d+ polls?$`));
		});

		test("waits out a 429 as Retry-After says, then finds the fax by its page count", async () => {
			const server = await start({
				env: { RATE_LIMIT_PER_MINUTE: "1", RATE_LIMIT_WINDOW_SECONDS: "5" },
				faxes: [
					faxRecord("fax_twoPages", null, Date.now() - 30_000, 2),
					faxRecord("fax_onePage", null, Date.now() - 20_000),
				],
			});
			// The one request of this client's window, which opens now: the script's first poll is refused.
			const expected = await servedFax(server, "fax_twoPages");
			const since = new Date(Date.now() - 60_000).toISOString();
			const waiting = run(script, [
				"--base-url",
				server.baseUrl,
				"--since",
				since,
				"--pages",
				"2",
				"--interval",
				script.interval,
				"--timeout",
				"20",
			]);
			const { code, stdout, lines } = await waiting.result();

			// One 429 and no other: polling on at its 1 s or 0.2 s interval would have met more of them.
			expect(lines.slice(1)).toEqual([
				expect.stringMatching(
					// What is left of the 5 s window when the script's first poll comes: less on a loaded machine.
					new RegExp(`^${script.name}: poll 1: HTTP 429, waiting [1-5] s as Retry-After says$`),
				),
				`${script.name}: found fax_twoPages after 2 polls`,
			]);
			expect(stdout).toBe(`${JSON.stringify(expected)}\n`);
			expect(code).toBe(0);
		});

		test("no matching fax within the time limit exits 1", async () => {
			const server = await start();
			const { code, stdout, lines } = await run(script, [
				"--base-url",
				server.baseUrl,
				"--interval",
				script.interval,
				"--timeout",
				"1",
			]).result();
			expect([code, stdout]).toEqual([1, ""]);
			expect(lines.at(-1)).toMatch(
				new RegExp(`^${script.name}: timed out: no matching fax after \\d+ polls?$`),
			);
		});

		test("a refused request (422) exits 2 with the server's message", async () => {
			const server = await start();
			const { code, stdout, lines } = await run(script, [
				"--base-url",
				server.baseUrl,
				"--from",
				"x".repeat(256),
				"--timeout",
				"60",
			]).result();
			expect([code, stdout]).toEqual([2, ""]);
			expect(lines).toContain(
				`${script.name}: the service refused the request (HTTP 422): The from field must not be longer than 255 characters.`,
			);
		});

		test("an unreachable service exits 3 at the time limit", async () => {
			const { code, stdout, lines } = await run(script, [
				"--base-url",
				`http://127.0.0.1:${closedPort()}`,
				"--interval",
				script.interval,
				"--timeout",
				"1",
			]).result();
			expect([code, stdout]).toEqual([3, ""]);
			expect(lines.at(-1)).toMatch(
				new RegExp(`^${script.name}: gave up after \\d+ polls?: the service could not be reached`),
			);
		});

		test("never past the rate limit: says so and exits 4; a 429 is waited out only to the time limit", async () => {
			const server = await start({ env: { RATE_LIMIT_PER_MINUTE: "1" } });
			// This client's one request of the minute, used up before the script starts.
			expect((await fetch(`${server.baseUrl}/api/faxes`, { headers: { "User-Agent": "t" } })).status).toBe(
				200,
			);
			const { code, stdout, lines } = await run(script, [
				"--base-url",
				server.baseUrl,
				"--interval",
				script.interval,
				"--timeout",
				"2",
			]).result();
			expect([code, stdout]).toEqual([4, ""]);
			expect(lines.slice(1)).toEqual([
				expect.stringMatching(
					new RegExp(
						// What is left of the 2 s limit and the minute when the script's first poll comes.
						`^${script.name}: poll 1: HTTP 429, waiting [0-2] s to the time limit \\(Retry-After says (5\\d|60) s\\)$`,
					),
				),
				`${script.name}: gave up after 2 polls: the service answered only 429 (rate limit used up), never the list`,
			]);
		});

		test("a fax listed at the first poll: found after 1 poll", async () => {
			const server = await start({ faxes: [faxRecord("fax_first", null, Date.now() - 5000)] });
			const since = new Date(Date.now() - 60_000).toISOString();
			const { code, lines } = await run(script, ["--base-url", server.baseUrl, "--since", since]).result();
			expect(code).toBe(0);
			expect(lines.at(-1)).toBe(`${script.name}: found fax_first after 1 poll`);
		});

		test("the time limit holds to within a poll's own latency", async () => {
			// The yardstick: the script's own start and exit, measured beside it on the same machine.
			const helpStarted = performance.now();
			await run(script, ["--help"]).result();
			const startMs = performance.now() - helpStarted;
			const started = performance.now();
			const { code } = await run(script, [
				"--base-url",
				`http://127.0.0.1:${closedPort()}`,
				"--interval",
				"15",
				"--timeout",
				"3",
			]).result();
			const elapsedMs = performance.now() - started;
			expect(code).toBe(3);
			// Before, the shell client slept whole seconds rounded up: 3.9 s and more.
			expect(elapsedMs).toBeGreaterThanOrEqual(3000);
			// Sleeping the interval out would end at 15 s; the slack is for a loaded machine, not a speed target.
			expect(elapsedMs).toBeLessThan(3000 + startMs + 5000);
		});

		test("bad arguments exit 2 before any request", async () => {
			for (const args of [
				[],
				["--base-url", "ftp://example.com"],
				["--base-url", "http://x", "--pages", "0"],
			]) {
				const { code, stdout, lines } = await run(script, args).result();
				expect({ args, code, stdout, pointer: lines.at(-1), count: lines.length }).toEqual({
					args,
					code: 2,
					stdout: "",
					pointer: `${script.name}: run with --help for the options and exit codes`,
					count: 2,
				});
			}
		});

		test("--help prints the options and exit codes and exits 0", async () => {
			const { code, stdout } = await run(script, ["--help"]).result();
			expect(code).toBe(0);
			for (const text of [
				"--base-url",
				"--from",
				"--pages",
				"--since",
				"--timeout",
				"--interval",
				"4 rate limited",
			]) {
				expect(stdout).toContain(text);
			}
		});

		test("sends its own User-Agent, the same since and limit=100 on every poll, + as %2B", async () => {
			const seen: { agent: string | null; query: string }[] = [];
			const fake = Bun.serve({
				port: 0,
				hostname: "127.0.0.1",
				fetch(request) {
					seen.push({ agent: request.headers.get("user-agent"), query: new URL(request.url).search });
					return Response.json([]);
				},
			});
			try {
				const { code } = await run(script, [
					"--base-url",
					`http://127.0.0.1:${fake.port}`,
					"--from",
					SENDER,
					"--interval",
					script.interval,
					"--timeout",
					"1.5",
				]).result();
				expect(code).toBe(1);
			} finally {
				fake.stop(true);
			}
			expect(seen.length).toBeGreaterThanOrEqual(2);
			// The same on every poll but wait, which never runs past the time limit.
			const withoutWait = seen.map(({ agent, query }) => ({ agent, query: query.replace(/&wait=\d+/, "") }));
			const [first] = withoutWait;
			for (const request of withoutWait) expect(request).toEqual(first as (typeof seen)[number]);
			expect(first?.agent).toMatch(/^testfax-wait-example\/1\.0 \((Python|sh)\)$/);
			const query = new URLSearchParams(first?.query);
			expect(query.get("limit")).toBe("100");
			expect(query.get("from")).toBe(SENDER);
			// Percent-encoding is case-insensitive; curl writes %2b, Python %2B.
			expect(first?.query.toUpperCase()).toContain("FROM=%2B1");
			expect(query.get("since")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
		});

		test("sends wait and the last ETag; against a server that answers at once it keeps its interval", async () => {
			const seen: { at: number; wait: string | null; ifNoneMatch: string | null }[] = [];
			const etag = 'W/"unchanged"';
			const fake = Bun.serve({
				port: 0,
				hostname: "127.0.0.1",
				fetch(request) {
					const ifNoneMatch = request.headers.get("if-none-match");
					seen.push({
						at: performance.now(),
						wait: new URL(request.url).searchParams.get("wait"),
						ifNoneMatch,
					});
					return ifNoneMatch === etag
						? new Response(null, { status: 304, headers: { etag } })
						: Response.json([], { headers: { etag } });
				},
			});
			try {
				const args = ["--base-url", `http://127.0.0.1:${fake.port}`, "--interval", "3", "--timeout", "6.5"];
				expect((await run(script, args).result()).code).toBe(1);
			} finally {
				fake.stop(true);
			}
			// The wait asked is the whole seconds left, so how many depends on how quickly the script started.
			const [first, second] = seen.map(({ wait }) => Number(wait));
			expect([first, second].every((wait) => wait !== undefined && wait >= 1 && wait <= 6)).toBe(true);
			expect(second).toBeLessThanOrEqual(first ?? 0);
			expect(seen.slice(0, 2).map(({ ifNoneMatch }) => ifNoneMatch)).toEqual([null, etag]);
			// The first list is news, so the second poll goes at once, not after the 3 s interval
			// (the bound leaves a loaded machine its delays); every 304 came at once, so the interval passes.
			const gaps = seen.slice(1).map((request, i) => request.at - (seen[i]?.at ?? 0));
			expect(gaps[0]).toBeLessThan(2000);
			expect(gaps[1]).toBeGreaterThanOrEqual(2900);
			expect(seen.length).toBeLessThanOrEqual(6);
			expect(seen.at(-1)?.wait).toBeNull();
		});

		test("a held poll is woken by the fax: found after one poll", async () => {
			const server = await start();
			const waiting = run(script, ["--base-url", server.baseUrl, "--from", SENDER, "--timeout", "20"]);
			await waiting.printed(/waiting up to 20 s/);
			await Bun.sleep(300);
			await importWhileRunning(server, [faxRecord("fax_woken", "+15551234567", Date.now())]);
			const { code, stdout, stderr } = await waiting.result();
			expect([code, JSON.parse(stdout).slug]).toEqual([0, "fax_woken"]);
			expect(stderr).toMatch(/found fax_woken after 1 polls?\n$/);
		});
	});
}
