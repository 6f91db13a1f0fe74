// A scan-to-email test as our mail server hands it over (`fax receive-mail`,
// the Received header and Return-Path our Postfix writes), checked against a
// real DNS server on loopback (DNS_SERVERS), read on its page as a mail
// engineer reads it: each page of the real 2-page scan, what Gmail or
// Microsoft 365 would likely do and why, the device's clock. The page never
// names the sender's domain or address, nor the client's address.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { type DnsServer, startDnsServer } from "../../testkit/dns-server.ts";
import { rfc2822, scanEmailMessage } from "../../testkit/scan-email.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { pageDetails, pageVerdict } from "../../testkit/transmission-report.ts";

// The scanner's address as our Postfix saw it; the "listed" domain's SPF record lists it.
const CLIENT = "192.0.2.10";

let dns: DnsServer;
let server: TestServer;
beforeAll(async () => {
	dns = await startDnsServer({
		zone: "test",
		txt: [
			["listed.test", `v=spf1 ip4:${CLIENT} -all`],
			["_dmarc.listed.test", "v=DMARC1; p=reject"],
			["unlisted.test", "v=spf1 ip4:203.0.113.1 -all"],
			["_dmarc.unlisted.test", "v=DMARC1; p=reject"],
		],
	});
	server = await startTestServer();
});
afterAll(async () => {
	await server?.stop();
	await dns?.stop();
});

/** A message with the scan attached, as our Postfix's pipe hands it over (flags=R: Return-Path first). */
const message = (domain: string, deviceClockMs: number, id: string) =>
	scanEmailMessage({
		domain,
		date: rfc2822(deviceClockMs),
		messageId: id,
		relayed: { client: CLIENT, at: rfc2822(Date.now() - 1000) },
	});

/** Hands the message over as Postfix's pipe does; its page, as text rows, with its verdict and the raw HTML. */
async function handOver(text: string) {
	const env = { ...server.env, DNS_SERVERS: dns.address };
	const result = await runFax(["receive-mail", "4Fx9Q2Zk1sz9"], env, text);
	expect([result.code, result.stderr]).toEqual([0, ""]);
	const slug = /listed as (fax_\w+)/.exec(result.stdout)?.[1] ?? "";
	const html = await (await server.request(`/faxtest/${slug}`)).text();
	const verdict = pageVerdict(html);
	return { slug, html, rows: pageDetails(html), rule: verdict.rule, verdict: verdict.text };
}

test("a scan whose sending address its domain's SPF lists: each page as scanned, and delivered to the inbox", async () => {
	const { rows, rule, html } = await handOver(await message("listed.test", Date.now(), "ok"));
	expect(rule).toBe("all-good");
	expect(rows["Page 1 of the scan"]).toBe("A4 (210 × 297 mm), 300 dpi, greyscale, JPEG, 52 kB");
	expect(rows["Page 2 of the scan"]).toBe(
		"US Letter (216 × 279 mm), 200 dpi, black and white, CCITT G4, 873 bytes",
	);
	expect(rows["Text layer"]).toBe("No: images only, so recipients cannot search or copy its text");
	expect(rows["Made by"]).toBe("Example MFP 4000 (firmware 2.04)");
	expect(rows["PDF written by"]).toBe("img2pdf 0.4.4");
	expect(rows["Real recipients"]).toBe("Gmail or Microsoft 365 would likely deliver it to the inbox.");
	expect(rows.SPF).toBe("pass: your domain's SPF record lists the address your device sent from");
	expect(rows.DKIM).toBe("none: the message is not signed");
	expect(rows.DMARC).toBe("pass (your domain's policy is reject)");
	expect(rows["The device's clock"]).toBe("Right: within two minutes of our mail server's.");
	for (const secret of ["listed.test", CLIENT, "scanner@"]) expect(html).not.toContain(secret);
});

test("a scan sent directly from an address its domain's SPF does not list, unsigned, under DMARC p=reject: would be refused, and why", async () => {
	const { rule, verdict, rows, html, slug } = await handOver(
		await message("unlisted.test", Date.now(), "refused"),
	);
	expect(rule).toBe("email-refused-elsewhere");
	expect(verdict).toContain(
		"The test arrived here, but Gmail or Microsoft 365 would likely refuse it: your domain's DMARC policy is reject, " +
			"the address your device sent from is not in your domain's SPF record, and it is not signed for your domain (DKIM).",
	);
	expect(verdict).toContain(
		"Send through your mail provider's authenticated relay (SMTP submission on port 587",
	);
	expect(rows.SPF).toBe("fail: your domain's SPF record does not list the address your device sent from");
	expect(rows.DMARC).toBe(
		"fail: neither SPF nor DKIM passes for your domain, and your domain's policy is reject",
	);
	for (const secret of ["unlisted.test", CLIENT]) expect(html).not.toContain(secret);
	// The list row says it, from the words memory keeps with the fax.
	const words = await (await server.request(`/faxtest/outcomes?slugs=${slug}`)).json();
	expect(words).toEqual({ [slug]: "real recipients would refuse it" });
});

test("a device clock 3 hours behind is called a time-zone mistake", async () => {
	const { rule, verdict, rows } = await handOver(
		await message("listed.test", Date.now() - 3 * 3600_000 - 20_000, "clock"),
	);
	expect(rule).toBe("email-clock");
	const words =
		"The device's clock is 3 hours behind ours: a time zone set wrongly (a local time sent as UTC, or the wrong zone).";
	expect(rows["The device's clock"]).toBe(words);
	expect(verdict).toContain(`The test arrived complete, but its time is wrong. ${words}`);
	expect(verdict).toContain("Set the device's time zone (and daylight saving time) to where it stands.");
});

test('a DNS server that does not answer: the checks read "could not be checked", never a fail, and the scan is listed within the bound', async () => {
	const env = { ...server.env, DNS_SERVERS: dns.silentAddress };
	const started = performance.now();
	const result = await runFax(
		["receive-mail", "4Fx9Q2Zk1sz0"],
		env,
		await message("unlisted.test", Date.now(), "dns"),
	);
	expect(result.code).toBe(0);
	// MAIL_AUTH_TIMEOUT_MS (5 s) and the rest of the hand-over.
	expect(performance.now() - started).toBeLessThan(9000);
	const slug = /listed as (fax_\w+)/.exec(result.stdout)?.[1] ?? "";
	const rows = pageDetails(await (await server.request(`/faxtest/${slug}`)).text());
	expect(rows["Real recipients"]).toBe(
		"Whether Gmail or Microsoft 365 would take it could not be checked (DNS did not answer in time, or gave no usable answer).",
	);
	for (const check of ["SPF", "DMARC"]) expect(rows[check]).toStartWith("could not be checked");
}, 20_000);
