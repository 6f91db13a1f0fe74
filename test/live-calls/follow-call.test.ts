// `fax follow-call` as call-watch runs it (through hand-over --live): a real
// call's session log written into its standard input in pieces cut anywhere,
// shown on /faxtest and on its stream while it lasts, the sender masked and
// the caller's number never; nothing of it in /api/faxes; its fax's hand-over
// (`fax receive-hylafax`, as faxrcvd runs it) takes its place in one commit.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { childEnv } from "../../testkit/child-env.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir, startTestServer, type TestServer } from "../../testkit/server.ts";

const ROOT = join(import.meta.dir, "../..");
const TSI = "+44 20 7946 0018";
const MASKED = "+4420*****018";
// The caller ID faxgetty logs ("CallID:"): never on any page.
const CALLER = ["15550100", "Test Sender", "5550000"];
const LOG = readFileSync(join(ROOT, "fixtures/hylafax/clean/receiver.log"), "latin1").replaceAll(
	"IAXmodem",
	TSI,
);
const KEY = "000000002@Nov 26 10:28:30.93";

let server: TestServer;
let dir: string;
beforeAll(async () => {
	server = await startTestServer();
	dir = makeTempDir();
});
afterAll(async () => {
	await server.stop();
	rmSync(dir, { recursive: true, force: true });
});

/** The stream's events for `seconds`, as the page's script reads them. */
async function streamEvents(
	path: string,
): Promise<{ headers: Headers; events: { now: number; calls: unknown[] }[] }> {
	const answer = await fetch(`${server.baseUrl}${path}`);
	const text = await answer.text();
	const events = text
		.split("\n\n")
		.filter((event) => event.startsWith("data: "))
		.map((event) => JSON.parse(event.slice(6)));
	return { headers: answer.headers, events };
}

async function page(): Promise<string> {
	return (await fetch(`${server.baseUrl}/faxtest`)).text();
}

/** The received file as faxgetty leaves it: last written now, by this test's clock (any date). */
function receivedFile(): string {
	const path = join(dir, "fax000000001.tif");
	copyFileSync(join(ROOT, "fixtures/hylafax/clean/received.tif"), path);
	const now = Date.now() / 1000;
	utimesSync(path, now, now);
	return path;
}

function handOverFax(logPath: string) {
	return runCommand(
		[
			"sh",
			"-c",
			'exec "$0" bin/fax.ts receive-hylafax fax000000001.tif "--reason=" < "$1" 3< "$2"',
			process.execPath,
			receivedFile(),
			logPath,
		],
		{ cwd: ROOT, env: server.env },
	);
}

test("a call fed in pieces shows on /faxtest and its stream, masked, never in the API; its fax takes its place", async () => {
	const bytes = Buffer.from(LOG, "latin1");
	const cuts =
		fc.sample(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }), 1)[0] ?? [];
	const follower = Bun.spawn([process.execPath, "bin/fax.ts", "follow-call", "c000000002"], {
		cwd: ROOT,
		env: childEnv(server.env),
		stdin: "pipe",
		stdout: "pipe",
	});
	let from = 0;
	for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
		follower.stdin.write(bytes.subarray(from, cut));
		await follower.stdin.flush();
		from = cut;
	}
	// The follower is a process of its own: polled until its last write is shown, not timed.
	let html = await page();
	while (!html.includes("The call has ended")) html = await Bun.sleep(20).then(page);
	const stream = streamEvents("/faxtest/calls?wait=0");
	expect(html).toContain(`data-call="${KEY}"`);
	expect(html).toContain(`<span class="from">${MASKED}</span>`);
	expect(html).toContain('<span class="now">The call has ended: its fax is being listed.</span>');
	const { headers, events } = await stream;
	expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
	expect(headers.get("x-ratelimit-limit")).not.toBeNull();
	expect(JSON.stringify(events.at(-1))).toContain(MASKED);
	for (const shown of [html, JSON.stringify(events)]) {
		expect(shown).not.toContain(TSI);
		for (const part of CALLER) expect(shown).not.toContain(part);
	}
	expect(await (await fetch(`${server.baseUrl}/api/faxes`)).json()).toEqual([]);

	const logPath = join(dir, "c000000002");
	writeFileSync(logPath, bytes);
	const handed = await handOverFax(logPath);
	expect(handed.stderr).toBe("");
	const slug = /listed as (fax_\w+)/.exec(handed.stdout)?.[1] as string;
	const after = await page();
	expect(after).not.toContain('class="call"');
	expect(after).toContain(`data-slug="${slug}"`);
	follower.stdin.end();
	expect(await follower.exited).toBe(0);
	expect(await new Response(follower.stdout).text()).toBe(
		`c000000002: call ${KEY} ended, listed as ${slug}\n`,
	);
});

test("a stream's wait is 0 to 30 s: anything else is a 422 that says so", async () => {
	const answer = await fetch(`${server.baseUrl}/faxtest/calls?wait=31`);
	expect(answer.status).toBe(422);
	expect(await answer.json()).toEqual({ message: "wait is a whole number of seconds from 0 to 30" });
	const empty = await streamEvents("/faxtest/calls?wait=0&from=%2B1%20555%20000%200000");
	expect(empty.events).toEqual([{ now: expect.any(Number), calls: [] }]);
});

test("streams are bounded like held lists: past WAIT_MAX_HELD_PER_CLIENT a stream carries the calls once and ends; each is counted by the rate limit", async () => {
	const bounded = await startTestServer({
		env: { WAIT_MAX_HELD_PER_CLIENT: "2", RATE_LIMIT_PER_MINUTE: "100" },
	});
	try {
		const held = [1, 2].map(() => fetch(`${bounded.baseUrl}/faxtest/calls?wait=2`));
		const answers = await Promise.all(held);
		expect(await (await bounded.admin("/metrics")).text()).toContain("\ntestfax_call_streams 2\n");
		const started = Date.now();
		const third = await fetch(`${bounded.baseUrl}/faxtest/calls?wait=2`);
		expect((await third.text()).split("\n\n").filter((event) => event.startsWith("data: "))).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(1000);
		expect(answers.map((answer) => answer.headers.get("x-ratelimit-remaining")).sort()).toEqual(["98", "99"]);
		expect(third.headers.get("x-ratelimit-remaining")).toBe("97");
		await Promise.all(answers.map((answer) => answer.text()));
		expect(await (await bounded.admin("/metrics")).text()).toContain("\ntestfax_call_streams 0\n");
	} finally {
		await bounded.stop();
	}
});

test("a call no fax machine answered says so on the page for a few seconds, then goes: nothing is listed", async () => {
	const log = readFileSync(join(ROOT, "fixtures/hylafax/killanswer/receiver.log"));
	const follower = Bun.spawn([process.execPath, "bin/fax.ts", "follow-call", "c000000009"], {
		cwd: ROOT,
		env: childEnv(server.env),
		stdin: log,
		stdout: "pipe",
	});
	let html = await page();
	while (!html.includes("no fax machine answered ours")) html = await Bun.sleep(20).then(page);
	expect(html).toContain(
		'<span class="now">The call has ended: no fax machine answered ours, so it is not listed.</span>',
	);
	expect(await follower.exited).toBe(0);
	const key = /data-call="([^"]+)"/.exec(html)?.[1];
	expect(await new Response(follower.stdout).text()).toBe(`c000000009: call ${key} ended\n`);
	expect(await page()).not.toContain(`data-call="${key}"`);
});
