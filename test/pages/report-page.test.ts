import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, utimesSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Page } from "playwright-core";
import { parseFaxEmail } from "../../lib/document/index.ts";
import { useBrowser } from "../../testkit/browser.ts";
import { emptyDnsServer } from "../../testkit/dns-server.ts";
import { freePort } from "../../testkit/ports.ts";
import { makeTempDir, runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import {
	expectPageShowsFaxinfo,
	faxinfoFields,
	pageDetails,
	tiffinfoFirstPage,
} from "../../testkit/transmission-report.ts";
import { textPdf } from "../document/make-files.ts";

const browser = useBrowser();
const fixture = (name: string) => join(import.meta.dir, "../../fixtures/ingest", name);

let server: TestServer;
let dir: string;
beforeAll(async () => {
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	server = await startTestServer({
		env: { PORT: String(port), CDN_BASE_URL: `${base}/cdn`, SITE_BASE_URL: base },
	});
	dir = makeTempDir();
});
afterAll(() => server.stop());

function slugOf(stdout: string): string {
	const slug = /(?:^|listed as )(fax_[A-Za-z0-9]+)/.exec(stdout)?.[1];
	if (slug === undefined) throw new Error(`not listed: ${stdout}`);
	return slug;
}

/** A fixture as HylaFAX hands it over: a queue file written just now. */
let calls = 0;

async function receivedByPhone(name: string): Promise<{ slug: string; path: string }> {
	// Named as HylaFAX names its queue files, one a call.
	const path = join(dir, `fax${String(++calls).padStart(9, "0")}.tif`);
	copyFileSync(fixture(name), path);
	// Written now by this process's clock: the file system's own clock is not faked (test:any-date).
	const now = new Date();
	utimesSync(path, now, now);
	// As deploy/receivers/hylafax/hand-over runs it: the queue file itself on standard input.
	const result = await runFax(["receive-hylafax", basename(path)], server.env, Bun.file(path));
	expect(result.code).toBe(0);
	return { slug: slugOf(result.stdout), path };
}

/** An email fixture as our Postfix pipes it in, its first Received header dated now. */
async function receivedByMail(name: string, received: string | null = null): Promise<string> {
	let message = await Bun.file(fixture(name)).text();
	const now = new Date().toUTCString().replace("GMT", "+0000");
	message = message.replace(
		/(\tfor <[^>]+>; |\tby mail\.example\.net with ESMTP id 4711; ).*\r\n/,
		`$1${now}\r\n`,
	);
	if (received !== null) message = `Received: ${received}; ${now}\r\n${message}`;
	// The device's clock as right as our mail server's: the clock row is not what these tests are about.
	message = message.replace(/^Date: .*\r\n/m, `Date: ${now}\r\n`);
	const env = { ...server.env, DNS_SERVERS: (await emptyDnsServer()).address };
	const result = await runFax(["receive-mail", `Q${Math.random().toString(36).slice(2, 10)}`], env, message);
	expect(result.code).toBe(0);
	return slugOf(result.stdout);
}

async function pageHtml(slug: string): Promise<string> {
	const answer = await server.request(`/faxtest/${slug}`);
	expect(answer.status).toBe(200);
	return answer.text();
}

/** The transmission report's rows as a reader sees them in Chromium. */
async function reportOf(page: Page): Promise<Record<string, string>> {
	const terms = await page.locator("#report > dt").allInnerTexts();
	const values = await page.locator("#report > dd").allInnerTexts();
	return Object.fromEntries(terms.map((term, i) => [term, values[i] ?? ""]));
}

describe("the transmission report of a fax HylaFAX received", () => {
	test("two real receptions (HylaFAX 6.0.7, iaxmodem): every figure as faxinfo and tiffinfo read the file", async () => {
		for (const name of ["hylafax-mmr-ecm-1.tif", "hylafax-mmr-ecm-2.tif"]) {
			const { slug, path } = await receivedByPhone(name);
			expectPageShowsFaxinfo(await pageHtml(slug), path);
		}
	});

	test("in Chromium: the exact rows, and a screenshot", async () => {
		const { slug, path } = await receivedByPhone("hylafax-mmr-ecm-1.tif");
		const faxinfo = faxinfoFields(path);
		expect([faxinfo.SignalRate, faxinfo.DataFormat, faxinfo.ErrCorrect, faxinfo.TimeToRecv]).toEqual([
			"14400 bit/s",
			"2-D MMR",
			"Yes",
			"0:00:13",
		]);
		const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
		await page.goto(`${server.baseUrl}/faxtest/${slug}`);
		await page.locator("figure img").waitFor();
		expect(
			await page
				.locator("figure img")
				.evaluate((img) => [Reflect.get(img, "naturalWidth"), Reflect.get(img, "width")]),
		).toEqual([600, 300]);
		expect(await page.locator("#report-title").innerText()).toBe("Transmission report");
		expect(await reportOf(page)).toEqual({
			"Signal rate": "14,400 bit/s (V.17)",
			"Data format": "MMR (2-D MMR, ITU-T T.6)",
			"Error correction (ECM)": "Yes",
			"Time on the line": "0:00:13 (13 s)",
			Resolution: "204 × 98 dpi (standard)",
			"Page size": "1,728 × 400 pixels, 215 × 104 mm",
			"Station ID (TSI)": "None sent",
		});
		await browser.screenshot(page, "fax-page-phone-report");
		await page.context().close();
	});

	test("the station ID row shows the TSI the file holds, not the sender typed to `fax ingest --sender`", async () => {
		// hylafax-mmr-ecm-1.tif came with an empty TSI (faxinfo prints "Sender: ").
		const path = fixture("hylafax-mmr-ecm-1.tif");
		expect(faxinfoFields(path).Sender).toBe("");
		const result = await runFax(
			["ingest", path, "--source", "phone", "--sender", "+1 555 010 9999"],
			server.env,
		);
		expect(result.code).toBe(0);
		const html = await (await server.request(`/faxtest/${slugOf(result.stdout)}`)).text();
		expect(html).toContain("+155*****999");
		expect(html).toContain("<dt>Station ID (TSI)</dt><dd>None sent</dd>");
	});

	test("a TIFF without HylaFAX's tags (an import, another receiver) has no session rows: the page says only what the file says", async () => {
		const result = await runFax(["ingest", fixture("fax-g3-2d-fine.tif"), "--source", "phone"], server.env);
		const details = pageDetails(await pageHtml(slugOf(result.stdout)));
		expect(details["Signal rate"]).toBeUndefined();
		expect(details["Data format"]).toBe("MR (2-D Modified READ, ITU-T T.4)");
		const tiff = tiffinfoFirstPage(fixture("fax-g3-2d-fine.tif"));
		expect(details.Resolution).toBe(`${tiff.xDpi} × ${tiff.yDpi} dpi (fine)`);
		expect(details["Page size"]).toBe("1,728 × 2,200 pixels, 215 × 285 mm, US Letter");
	});
});

describe("the transmission report of an email test", () => {
	test("T.37 simple mode: TIFF-F, MIME type, safe name, size, our Postfix's record of the host and its TLS", async () => {
		const slug = await receivedByMail("t37-tiff-f.eml");
		const email = await parseFaxEmail(await Bun.file(fixture("t37-tiff-f.eml")).bytes());
		const tiffPath = join(dir, "t37.tif");
		writeFileSync(tiffPath, email.attachment?.bytes ?? new Uint8Array());
		const tiff = tiffinfoFirstPage(tiffPath);
		const coding = Bun.spawnSync(["tiffinfo", tiffPath]).stdout.toString();
		expect(coding).toContain("Compression Scheme: CCITT Group 3");
		expect(coding).toContain("Group 3 Options: (0 = 0x0)");
		const page = await browser.newPage();
		await page.goto(`${server.baseUrl}/faxtest/${slug}`);
		expect(await reportOf(page)).toEqual({
			"Kind of test": "Internet fax, ITU-T T.37 simple mode: a TIFF-F attachment",
			"MIME type": "image/tiff; application=faxbw",
			Attachment: "fax 0142.tif",
			"Attachment size": `${(4094 / 1000).toFixed(1)} kB (4,094 bytes)`,
			// The sender's own domain (From: …@branch.example.org) is never named.
			"Sending mail host": "ifax.(your domain)",
			"Came over TLS": "Yes: TLSv1.3, TLS_AES_256_GCM_SHA384 (256 bits)",
			"Page 1 of the scan": "215 × 104 mm, 204 × 98 dpi, black and white, CCITT G3 (MH), 1.8 kB",
			"Page 2 of the scan": "215 × 104 mm, 204 × 98 dpi, black and white, CCITT G3 (MH), 1.8 kB",
			"TIFF-F (RFC 3949)": "Conforms: a fax gateway takes it",
			"Real recipients": "Gmail or Microsoft 365 would likely file it as spam.",
			SPF: "none: your domain publishes no SPF record",
			DKIM: "none: the message is not signed",
			DMARC: "none: your domain publishes no DMARC policy",
			"The device's clock": "Right: within two minutes of our mail server's.",
			"Data format": "MH (1-D Modified Huffman, ITU-T T.4)",
			Resolution: `${tiff.xDpi} × ${tiff.yDpi} dpi (standard)`,
			"Page size": `1,728 × ${tiff.height} pixels, 215 × 104 mm`,
		});
		expect(email.attachment?.bytes.byteLength).toBe(4094);
		await browser.screenshot(page, "fax-page-t37-report");
		await page.context().close();
	});

	test("scan-to-email PDF over plain SMTP: the kind, the attachment, no TLS", async () => {
		const slug = await receivedByMail("scan-to-email.eml");
		const page = await browser.newPage();
		await page.goto(`${server.baseUrl}/faxtest/${slug}`);
		expect(await reportOf(page)).toEqual({
			"Kind of test": "Scan-to-email: a PDF attachment",
			"MIME type": 'application/pdf; name="scan_0001.pdf"',
			Attachment: "scan_0001.pdf",
			"Attachment size": "935 bytes",
			"Sending mail host": "mfp.office.(your domain)",
			"Came over TLS": "No: the message came to our mail server unencrypted",
			"Page 1 of the scan": "A4 (210 × 297 mm), no scanned image",
			"Page 2 of the scan": "A4 (210 × 297 mm), no scanned image",
			"Text layer": "Yes: the PDF holds text (OCR), so recipients can search and copy it",
			"Real recipients": "Gmail or Microsoft 365 would likely file it as spam.",
			SPF: "none: your domain publishes no SPF record",
			DKIM: "none: the message is not signed",
			DMARC: "none: your domain publishes no DMARC policy",
			"The device's clock": "Right: within two minutes of our mail server's.",
		});
		await browser.screenshot(page, "fax-page-pdf-report");
		await page.context().close();
	});

	test("an email without a fax says why in a tester's words; a hostile file name shows made safe", async () => {
		const missing = await receivedByMail(
			"no-attachment.eml",
			"from a (unknown [192.0.2.1]) by mx (Postfix) with ESMTP id 1",
		);
		const missingHtml = await pageHtml(missing);
		expect(missingHtml).toContain(
			'<p id="problem"><strong>Not processable:</strong> The email has no PDF or TIFF attachment.</p>',
		);
		expect(pageDetails(missingHtml)["Sending mail host"]).toBe(
			"a (the name it gave itself; no verified name)",
		);
		const hostile = (await Bun.file(fixture("t37-tiff-f.eml")).text()).replace(
			'filename="fax 0142.tif"',
			'filename="C:\\\\scans\\\\<img src=x onerror=alert(1)>\u202Efit.exe"',
		);
		const path = join(dir, "hostile.eml");
		writeFileSync(path, hostile);
		const result = await runFax(["ingest", path, "--source", "email"], server.env);
		const html = await pageHtml(slugOf(result.stdout));
		expect(pageDetails(html).Attachment).toBe("<img src=x onerror=alert(1)>fit.exe");
		expect(html).toContain("<dd>&lt;img src=x onerror=alert(1)&gt;fit.exe</dd>");
		const details = pageDetails(html);
		expect(details["Sending mail host"]).toBeUndefined();
	});

	test("a PDF cut short says so in Chromium, with no image; a screenshot", async () => {
		const pdf = await textPdf([[595.28, 841.89]]);
		const path = join(dir, "cut.pdf");
		writeFileSync(path, pdf.subarray(0, pdf.byteLength - 40));
		const result = await runFax(["ingest", path, "--source", "email"], server.env);
		expect(result.code).toBe(3);
		const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
		await page.goto(`${server.baseUrl}/faxtest/${slugOf(result.stdout)}`);
		expect(await page.locator("#problem").innerText()).toBe(
			"Not processable: The PDF is cut short or damaged.",
		);
		expect(await page.locator("img").count()).toBe(0);
		await browser.screenshot(page, "fax-page-not-processable");
		await page.context().close();
	});

	test("a fax with no report (the demo, an import) shows the page as before", async () => {
		const demo = await startTestServer({ env: { SEED_DEMO: "1" } });
		try {
			const html = await (await demo.request("/faxtest/fax_DemoPhone01")).text();
			expect(html).not.toContain("Transmission report");
		} finally {
			await demo.stop();
		}
	});
});
