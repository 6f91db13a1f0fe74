// `fax watch-mail` as mail-watch runs it (tail -F of Postfix's log, smtpd's
// lines through sudo): the real command fed smtpd's lines on standard input,
// into a real database, shown by the real server. A message to a test address
// that Postfix refused or that broke off is listed as not processable, its
// sender masked, its page saying how it ended; a client lists at most 5 an
// hour; the same lines read again list nothing new.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { pageDetails, pageVerdict } from "../../testkit/transmission-report.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(async () => {
	await server.stop();
});

const at = (pid: number, text: string) => `Nov 28 20:15:17 vm postfix/smtpd[${pid}]: ${text}`;

/** smtpd's lines of a message from `client` to the test address, ended by `end`. */
function message(pid: number, client: string, sender: string, queueId: string, end: string): string[] {
	const from = `unknown[${client}]`;
	return [
		at(pid, `connect from ${from}`),
		at(
			pid,
			`NOQUEUE: warn: RCPT from ${from}: testfax test address; from=<${sender}> to=<fax@test.example> proto=ESMTP helo=<mfp.company.example>`,
		),
		at(pid, `${queueId}: client=${from}`),
		at(pid, end.replaceAll("QUEUE", queueId).replaceAll("CLIENT", from)),
		at(pid, `disconnect from ${from} ehlo=1 mail=1 rcpt=1 data=0/1 commands=3/4`),
	];
}

const watchMail = (lines: string[]) => runFax(["watch-mail"], server.env, `${lines.join("\n")}\n`);

const faxes = async (query: string) =>
	(await (await fetch(`${server.baseUrl}/api/faxes?limit=100&${query}`)).json()) as Record<string, unknown>[];

test("a message refused as too large is listed as not processable, its sender masked; its page and row say why, and nothing names the client or the domain", async () => {
	const lines = message(
		7,
		"192.0.2.7",
		"scanner@company.example",
		"4jcQ1",
		"warning: QUEUE: queue file size limit exceeded",
	);
	const run = await watchMail(lines);
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	const slug = /^4jcQ1 \(too-large, from s\*\*\*@c\*\*\*\.example\): listed as (fax_\w+)\n$/.exec(
		run.stdout,
	)?.[1];
	expect(slug).toBeDefined();
	const listed = await faxes("from=scanner%40company.example");
	expect(listed).toEqual([
		expect.objectContaining({
			slug,
			source: "email",
			from: "s***@c***.example",
			page_count: null,
			file_size: null,
			pdf_url: null,
			thumbnail_url: null,
		}),
	]);
	const html = await (await fetch(`${server.baseUrl}/faxtest/${slug}`)).text();
	const verdict = pageVerdict(html);
	expect([verdict.rule, verdict.row]).toEqual(["email-not-taken", "refused: message too large"]);
	expect(html).toContain(
		"<p>Your device began sending the test to our mail server, but our mail server refused it as larger than 60 MiB, the most it takes, so nothing of it was kept.</p>",
	);
	expect(html).toContain("<li>Scan at 200 or 300 dpi rather than 600");
	const rows = pageDetails(html);
	expect(rows["Kind of test"]).toBe("An email our mail server refused as too large");
	expect(rows["Largest message our mail server takes"]).toBe("62.9 MB (62,914,560 bytes)");
	for (const hidden of ["192.0.2.7", "company.example", "scanner@", "4jcQ1"])
		expect(html).not.toContain(hidden);
	const list = await (await fetch(`${server.baseUrl}/faxtest`)).text();
	expect(list).toContain(`data-slug="${slug}"`);
	expect(list).toContain('<span class="outcome">refused: message too large</span>');

	const again = await watchMail(lines);
	expect(again.stdout).toBe(`4jcQ1 (too-large, from s***@c***.example): already listed as ${slug}\n`);
	expect(await faxes("from=scanner%40company.example")).toHaveLength(1);
});

test("a client lists at most 5 refusals an hour; the sixth is only reported, and another client's is listed", async () => {
	const lost = "lost connection after DATA (50064 bytes) from CLIENT";
	const flood = Array.from({ length: 6 }, (_, i) =>
		message(20 + i, "198.51.100.9", "flood@spam.example", `4jcF${i}`, lost),
	);
	const other = message(
		40,
		"203.0.113.5",
		"mfp@office.example",
		"4jcO1",
		"timeout after DATA (1024 bytes) from CLIENT",
	);
	const run = await watchMail([...flood.flat(), ...other]);
	expect(run.code).toBe(0);
	expect(run.stderr).toBe("4jcF5: not listed: its client listed 5 in the last hour already\n");
	expect(await faxes("from=flood%40spam.example")).toHaveLength(5);
	const [timeout] = await faxes("from=mfp%40office.example");
	const html = await (await fetch(`${server.baseUrl}/faxtest/${timeout?.slug}`)).text();
	expect(html).toContain(
		"<p>Your device began sending the test to our mail server, but your device stopped sending after 1,024 bytes of it and our mail server gave up waiting, so nothing of it was kept.</p>",
	);
	expect(pageDetails(html)["Received before it ended"]).toBe("1 kB (1,024 bytes)");
	const [flooded] = await faxes("from=flood%40spam.example");
	const floodPage = await (await fetch(`${server.baseUrl}/faxtest/${flooded?.slug}`)).text();
	expect(floodPage).toContain(
		"but the connection ended after 50,064 bytes of it, before the message was complete",
	);
});
