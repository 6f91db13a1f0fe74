import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createWaitCommand } from "../../lib/cli/commands/wait.ts";
import { runCli } from "../../lib/cli/run-cli.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { runFax, useTestServers } from "../../testkit/server.ts";
import { spawnWatched } from "../../testkit/watched-process.ts";
import { closedPort, faxRecord, importWhileRunning, servedFax } from "./server-fixtures.ts";

const SENDER = "+1 555 123 4567";

const start = useTestServers();

/** Runs `fax wait` in this process, with standard error as a terminal or not. */
async function runWait(argv: string[], terminal: { isTTY: boolean; columns?: number }) {
	const out: string[] = [];
	const err: string[] = [];
	const written: string[] = [];
	const command = createWaitCommand({ ...terminal, write: (text) => written.push(text) });
	const code = await runCli([command], ["wait", ...argv], {
		env: {},
		out: (text) => out.push(text),
		err: (text) => err.push(text),
		readStdin: async () => new Uint8Array(),
		clock: Date.now,
	});
	return { code, out, err, written };
}

function lastLine(text: string): string {
	return text.trimEnd().split("\n").at(-1) ?? "";
}

// The tests of --timeout run in real time: what they check is the command's
// own clock, from a process's start to its exit, which a test cannot step.
describe("fax wait", () => {
	test("prints exactly the fax imported while it waits, and exits 0", async () => {
		const running = await start();
		const waiting = spawnWatched(
			[
				process.execPath,
				"bin/fax.ts",
				"wait",
				"--base-url",
				running.baseUrl,
				"--from",
				SENDER,
				"--interval",
				"0.2",
				"--timeout",
				"20",
			],
			{ cwd: join(import.meta.dir, "../.."), env: childEnv() },
		);
		// Sent once the command has noted its start, as a user would: not after a guessed delay.
		await waiting.printed(/fax wait: waiting up to 20 s .*\n/);
		await importWhileRunning(running, [faxRecord("fax_viaCli", "+15551234567", Date.now())]);
		const result = await waiting.result();

		expect(result.stdout).toBe(`${JSON.stringify(await servedFax(running, "fax_viaCli"))}\n`);
		expect(result.code).toBe(0);
		const lines = result.stderr.trimEnd().split("\n");
		expect(lines[0]).toMatch(
			/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ fax wait: waiting up to 20 s for a fax from "\+1 555 123 4567" received after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
		);
		// The first poll is held by the server until the import wakes it.
		expect(lines.slice(1)).toEqual([
			expect.stringMatching(/^fax wait: found fax_viaCli after \d+(\.\d)? s and 1 poll$/),
		]);
	});

	test("an older fax before --since is ignored; with --quiet only the fax is printed", async () => {
		const now = Date.now();
		const running = await start({
			faxes: [
				faxRecord("fax_tooOld", null, now - 120_000, 2),
				faxRecord("fax_recent", null, now - 30_000, 2),
			],
		});
		const since = new Date(now - 60_000).toISOString();
		const result = await runFax(
			["wait", "--base-url", running.baseUrl, "--since", since, "--pages", "2", "--quiet", "--timeout", "5"],
			{},
		);
		expect(result).toEqual({
			code: 0,
			stdout: `${JSON.stringify(await servedFax(running, "fax_recent"))}\n`,
			stderr: "",
		});
	});

	test("a 422 exits 2 at once with the server's message", async () => {
		const running = await start();
		const started = performance.now();
		const result = await runFax(
			["wait", "--base-url", running.baseUrl, "--from", "x".repeat(256), "--quiet", "--timeout", "60"],
			{},
		);
		expect(performance.now() - started).toBeLessThan(10_000);
		expect(result.code).toBe(2);
		expect(result.stdout).toBe("");
		const [message, request] = result.stderr.trimEnd().split("\n");
		expect(message).toBe(
			"fax wait: the service refused the request (HTTP 422): The from field must not be longer than 255 characters.",
		);
		expect(request).toStartWith(`  GET ${running.baseUrl}/api/faxes?since=`);
	});

	test("an unreachable server exits 3 after the time limit", async () => {
		const started = performance.now();
		const result = await runFax(
			["wait", "--base-url", `http://127.0.0.1:${closedPort()}`, "--interval", "0.2", "--timeout", "1.5"],
			{},
		);
		expect(performance.now() - started).toBeGreaterThanOrEqual(1500);
		expect(result.code).toBe(3);
		expect(result.stdout).toBe("");
		expect(lastLine(result.stderr)).toMatch(
			/^fax wait: gave up after 1(\.\d)? s and \d+ polls: the service could not be reached: .*ECONNREFUSED/,
		);
	});

	test("never past the rate limit: says so and exits 4", async () => {
		const running = await start({ env: { RATE_LIMIT_PER_MINUTE: "1" } });
		// This client's one request of the minute, used up before the command starts.
		expect((await fetch(`${running.baseUrl}/api/faxes`, { headers: { "User-Agent": "t" } })).status).toBe(
			200,
		);
		const result = await runFax(["wait", "--base-url", running.baseUrl, "--timeout", "1.5"], {});
		expect([result.code, result.stdout]).toEqual([4, ""]);
		expect(lastLine(result.stderr)).toMatch(
			/^fax wait: gave up after 1(\.\d)? s and 2 polls: the service answered only 429 \(rate limit used up\), never the list$/,
		);
	});

	test("the time limit holds to within a poll's own latency", async () => {
		const port = closedPort();
		const args = ["wait", "--base-url", `http://127.0.0.1:${port}`, "--interval", "15", "--timeout", "3"];
		// The yardstick: the command's own start and exit, measured beside it.
		const helpStarted = performance.now();
		await runFax(["wait", "--help"], {});
		const startMs = performance.now() - helpStarted;
		const started = performance.now();
		expect((await runFax(args, {})).code).toBe(3);
		const elapsedMs = performance.now() - started;
		expect(elapsedMs).toBeGreaterThanOrEqual(3000);
		// Sleeping the interval out would end at 15 s; the slack is for a loaded machine, not a speed target.
		expect(elapsedMs).toBeLessThan(3000 + startMs + 5000);
	});

	test("no matching fax within the time limit exits 1", async () => {
		const running = await start();
		const result = await runFax(
			["wait", "--base-url", running.baseUrl, "--interval", "0.2", "--timeout", "1"],
			{},
		);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe("");
		expect(lastLine(result.stderr)).toMatch(
			/^fax wait: timed out: no matching fax after 1(\.\d)? s and \d+ polls$/,
		);
	});

	test("on a terminal, progress is one line rewritten in place and cleared at the end", async () => {
		const running = await start({ faxes: [faxRecord("fax_onTerminal", null, Date.now() - 1000)] });
		const since = new Date(Date.now() - 60_000).toISOString();
		const { code, out, err, written } = await runWait(
			["--base-url", running.baseUrl, "--since", since, "--pages", "1"],
			{ isTTY: true, columns: 60 },
		);
		expect(code).toBe(0);
		expect(out).toEqual([JSON.stringify(await servedFax(running, "fax_onTerminal"))]);
		expect(written).toEqual([
			"\r\x1b[Kwaiting 0 s / 600 s | 0 polls | no answer yet | a fax with…",
			"\r\x1b[K",
		]);
		expect(err).toEqual([
			expect.stringMatching(/^fax wait: found fax_onTerminal after \d(\.\d)? s and 1 poll$/),
		]);
	});

	test("off a terminal nothing is rewritten in place", async () => {
		const running = await start({ faxes: [faxRecord("fax_offTerminal", null, Date.now() - 1000)] });
		const since = new Date(Date.now() - 60_000).toISOString();
		const { code, err, written } = await runWait(["--base-url", running.baseUrl, "--since", since], {
			isTTY: false,
		});
		expect(code).toBe(0);
		expect(written).toEqual([]);
		expect(err.length).toBe(2);
	});

	test("bad arguments exit 2 with the reason on one line and a pointer to --help, not the whole help", async () => {
		const cases: [string[], string][] = [
			[[], "fax wait: --base-url is required"],
			[
				["--base-url", "localhost:3000"],
				'fax wait: --base-url must be an absolute http(s) URL, got "localhost:3000"',
			],
			[
				["--base-url", "http://x/?a=1"],
				'fax wait: --base-url must not have a query or fragment, got "http://x/?a=1"',
			],
			[
				["--base-url", "http://x", "--since", "2026-11-21"],
				'fax wait: --since must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z, got "2026-11-21"',
			],
			[
				["--base-url", "http://x", "--since", "2026-11-21T10:00:00"],
				'fax wait: --since must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z, got "2026-11-21T10:00:00"',
			],
			[
				["--base-url", "http://x", "--pages", "0"],
				'fax wait: --pages must be a whole number of at least 1, got "0"',
			],
			[
				["--base-url", "http://x", "--timeout", "0"],
				'fax wait: --timeout must be a number of seconds above 0 and at most 86400, got "0"',
			],
			[
				["--base-url", "http://x", "--interval", "1e3"],
				'fax wait: --interval must be a number of seconds above 0 and at most 86400, got "1e3"',
			],
			[["--base-url", "http://x", "--from", ""], "fax wait: --from must not be empty"],
			[
				["--base-url", "http://x", "--user-agent", "caf\u00e9"],
				'fax wait: --user-agent must be printable ASCII text, got "caf\u00e9"',
			],
			[["--base-url", "http://x", "extra"], "fax wait: unexpected argument: extra"],
			[["--base-url", "http://x", "--bogus"], "fax wait: unknown option --bogus"],
		];
		for (const [argv, message] of cases) {
			const { code, out, err } = await runWait(argv, { isTTY: false });
			expect({ argv, code, out, err }).toEqual({
				argv,
				code: 2,
				out: [],
				err: [`${message}\nRun "fax wait --help" for its arguments.`],
			});
		}
	});

	test("--help documents the options and exit codes", async () => {
		const result = await runFax(["wait", "--help"], {});
		expect(result.code).toBe(0);
		for (const text of [
			"--base-url URL",
			"--since T",
			"--from SENDER",
			"--pages N",
			"--timeout SECONDS",
			"--interval SECONDS",
			"--user-agent UA",
			"--quiet",
			"testfax-wait/1.0.0",
			"  0  found",
			"  1  timed out",
			"  2  bad arguments, or the service refused the request (4xx)",
			"  3  the service could not be reached",
			"  4  rate limited: every answer until the time limit was 429",
			'"Waiting for a test fax" in\ndocs/API.md of this project, also served at <URL>/docs/API.md',
			"described at <URL>/docs.",
		]) {
			expect(result.stdout).toContain(text);
		}
	});
});
