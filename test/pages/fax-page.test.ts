import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { useBrowser } from "../../testkit/browser.ts";
import { ago, agoIn, faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { freePort } from "../../testkit/ports.ts";
import { startTestServer, type TestServer, useTestServers } from "../../testkit/server.ts";

const browser = useBrowser();

// The demo faxes of a first run, their times relative to the pinned clock, with
// the default addresses: every link points here.
let server: TestServer;
beforeAll(async () => {
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	server = await startTestServer({
		clock: fixedClock,
		env: { PORT: String(port), SEED_DEMO: "1", CDN_BASE_URL: `${base}/cdn`, SITE_BASE_URL: base },
	});
});
afterAll(() => server.stop());

/** How the page writes a UTC time: `2026-11-22 11:57:00 UTC`. */
function shownUtc(iso: string): string {
	return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

async function viewUrlOf(slug: string): Promise<string> {
	const fax = (await (await server.request(`/api/faxes/${slug}`)).json()) as { view_url: string };
	return fax.view_url;
}

/** Each term of the page's description list and what it says, as a reader sees them. */
async function detailsOf(page: Page): Promise<Record<string, string>> {
	const terms = await page.locator("dl > dt").allInnerTexts();
	const values = await page.locator("dl > dd").allInnerTexts();
	return Object.fromEntries(terms.map((term, i) => [term, values[i] ?? ""]));
}

/** What the page's elements of a kind point at, as the browser resolved it. */
function addressesOf(page: Page, selector: string, attribute: "href" | "src"): Promise<string[]> {
	return page
		.locator(selector)
		.evaluateAll(
			(elements, name) => elements.map((element) => String(Reflect.get(element, name))),
			attribute,
		);
}

function watchErrors(page: Page): string[] {
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") errors.push(message.text());
	});
	return errors;
}

describe("the fax page in Chromium", () => {
	test("view_url opens the fax: masked sender, source, UTC and local time, pages, size, thumbnail", async () => {
		const page = await browser.newPage({ timezoneId: "Asia/Tokyo", locale: "en-GB" });
		const errors = watchErrors(page);
		const url = await viewUrlOf("fax_DemoPhone01");
		expect(url).toBe(`${server.baseUrl}/faxtest/fax_DemoPhone01`);
		const response = await page.goto(url);
		expect(response?.status()).toBe(200);

		expect(await page.title()).toBe(`Test fax fax_DemoPhone01, received ${shownUtc(ago(180))}`);
		expect(await page.locator("h1").innerText()).toBe("Test fax fax_DemoPhone01");
		const fax = (await (await server.request("/api/faxes/fax_DemoPhone01")).json()) as { file_size: number };
		const details = await detailsOf(page);
		expect(details).toEqual({
			Sender: "+155*****567",
			Source: "Fax by phone",
			Received: expect.stringMatching(
				new RegExp(`^${shownUtc(ago(180))}\\nYour time: .*${agoIn(180, "+09:00").slice(11, 19)} GMT\\+9$`),
			),
			Pages: "1",
			Size: `${(fax.file_size / 1000).toFixed(1).replace(/\.0$/, "")} kB (${fax.file_size.toLocaleString("en")} bytes)`,
		});

		const image = page.getByRole("img", { name: "First page of test fax fax_DemoPhone01" });
		expect(
			await image.evaluate((img) => [
				Reflect.get(img, "complete"),
				Reflect.get(img, "naturalWidth"),
				Reflect.get(img, "width"),
			]),
			// Twice as many pixels as it is shown at: sharp on a 2× screen.
		).toEqual([true, 600, 300]);
		await browser.screenshot(page, "fax-page");
		expect(errors).toEqual([]);
		expect(browser.offsite).toEqual([]);
		await page.close();
	});

	test("every link and image of the page resolves", async () => {
		const page = await browser.newPage();
		await page.goto(`${server.baseUrl}/faxtest/fax_DemoEmail001`);
		const targets = [...(await addressesOf(page, "a", "href")), ...(await addressesOf(page, "img", "src"))];
		expect(targets.sort()).toEqual(
			[
				`${server.baseUrl}/api/faxes/fax_DemoEmail001`,
				`${server.baseUrl}/cdn/faxes/fax_DemoEmail001-thumb.jpg`,
				`${server.baseUrl}/cdn/faxes/fax_DemoEmail001.pdf`,
				`${server.baseUrl}/cdn/faxes/fax_DemoEmail001.pdf`,
				`${server.baseUrl}/docs`,
			].sort(),
		);
		for (const target of new Set(targets)) {
			const answer = await page.request.get(target);
			expect({ target, status: answer.status() }).toEqual({ target, status: 200 });
		}
		const pdf = await page.request.get(`${server.baseUrl}/cdn/faxes/fax_DemoEmail001.pdf`);
		expect(pdf.headers()["content-type"]).toBe("application/pdf");
		expect(await page.getByRole("link", { name: /^Open the PDF \(3 pages, / }).count()).toBe(1);
		await page.close();
	});

	test("reads in full without script, in UTC", async () => {
		const page = await browser.newPage({ javaScriptEnabled: false, timezoneId: "America/New_York" });
		await page.goto(`${server.baseUrl}/faxtest/fax_DemoStation1`);
		// The fax's own details; its transmission report's rows follow (test/pages/report-page.test.ts).
		expect(await detailsOf(page)).toMatchObject({
			Sender: "ACME 42",
			Source: "Fax by phone",
			Received: shownUtc(ago(1_020)),
			Pages: "2",
			Size: expect.stringMatching(/^[\d.]+ kB \([\d,]+ bytes\)$/),
		});
		expect(await page.getByRole("img", { name: "First page of test fax fax_DemoStation1" }).isVisible()).toBe(
			true,
		);
		await browser.screenshot(page, "fax-page-no-script");
		await page.close();
	});

	test("a fax that could not be processed says so and shows no image", async () => {
		const page = await browser.newPage();
		await page.goto(`${server.baseUrl}/faxtest/fax_DemoBroken01`);
		expect(await detailsOf(page)).toMatchObject({
			Sender: "s***@o***.com",
			Source: "Email (scan-to-email or Internet fax)",
			Pages: "None: the email had no attachment to show",
			Size: "No PDF",
		});
		expect(await page.locator("main > p").innerText()).toBe(
			"This fax could not be processed: there is no PDF and no image of it.",
		);
		// The demo's scan without its attachment: the verdict says what happened and what to change.
		expect(await page.locator("#verdict p").first().innerText()).toBe(
			"The email arrived, but there is nothing to show: The email has no PDF or TIFF attachment.",
		);
		expect(await page.locator("img").count()).toBe(0);
		await page.close();
	});

	test("unknown and removed faxes get 404 and 410 pages", async () => {
		const page = await browser.newPage();
		const cases = [
			["fax_nothere", 404, "No such test fax"],
			["not-a-slug", 404, "No such test fax"],
			["fax_DemoRemoved1", 410, "Test fax removed"],
			["fax_DemoExpired1", 410, "Test fax removed"],
		] as const;
		for (const [slug, status, heading] of cases) {
			const response = await page.goto(`${server.baseUrl}/faxtest/${slug}`);
			expect({ slug, status: response?.status(), heading: await page.locator("h1").innerText() }).toEqual({
				slug,
				status,
				heading,
			});
			// A removed fax's page names it; a 404 repeats nothing of the address.
			expect({ slug, named: (await page.locator("main").innerText()).includes(slug) }).toEqual({
				slug,
				named: status === 410,
			});
		}
		await page.goto(`${server.baseUrl}/faxtest/fax_nothere`);
		await browser.screenshot(page, "fax-page-404");
		await page.goto(`${server.baseUrl}/faxtest/fax_DemoRemoved1`);
		await browser.screenshot(page, "fax-page-410");
		await page.close();
	});
});

describe("the security headers in Chromium", () => {
	test("the fax page runs its script under its policy and refuses any other", async () => {
		const page = await browser.newPage();
		const errors = watchErrors(page);
		await page.goto(`${server.baseUrl}/faxtest/fax_DemoPhone01`);
		expect(await page.locator("#local-time").innerText()).not.toBe("");
		// As an attacker's markup would: a script the policy does not name.
		const injected = await page.evaluate(`(() => {
			const script = document.createElement("script");
			script.textContent = "document.body.dataset.injected = 'ran';";
			document.body.append(script);
			return document.body.dataset.injected ?? "refused";
		})()`);
		expect(injected).toBe("refused");
		expect(errors).toEqual([expect.stringContaining("Executing inline script violates")]);
		await page.close();
	});

	test("neither the fax page nor /docs can be framed", async () => {
		for (const path of ["/faxtest/fax_DemoPhone01", "/docs"]) {
			const page = await browser.newPage();
			const errors = watchErrors(page);
			await page.setContent(`<iframe src="${server.baseUrl}${path}"></iframe>`);
			await page.waitForLoadState("load");
			expect({ path, errors }).toEqual({
				path,
				errors: [
					`Framing '${server.baseUrl}/' violates the following Content Security Policy directive: "frame-ancestors 'none'". The request has been blocked.\n`,
				],
			});
			await page.close();
		}
	});

	test("a received PDF opens in Chromium's PDF viewer, sandboxed", async () => {
		const page = await browser.newPage();
		const url = `${server.baseUrl}/cdn/faxes/fax_DemoPhone01.pdf`;
		const [response] = await Promise.all([page.waitForResponse(url), page.goto(url)]);
		expect((await response.allHeaders())["content-security-policy"]).toEndWith("; sandbox");
		expect([page.url(), await page.evaluate("document.contentType")]).toEqual([url, "application/pdf"]);
		// The viewer is the browser's own page in a frame of the PDF's document; refused, there is none.
		let viewer = page.frames().find((frame) => frame.url().startsWith("chrome-extension://"));
		for (let tries = 0; viewer === undefined && tries < 50; tries++) {
			await page.waitForTimeout(100);
			viewer = page.frames().find((frame) => frame.url().startsWith("chrome-extension://"));
		}
		// It names the document by its Content-Disposition once it has read it.
		const title = viewer?.locator("#title");
		await title?.waitFor({ timeout: 10_000 });
		expect(await title?.innerText()).toBe("fax_DemoPhone01.pdf");
		expect(browser.offsite).toEqual([]);
		await browser.screenshot(page, "fax-pdf-sandboxed");
		await page.close();
	});
});

describe("GET /faxtest/<slug> over HTTP", () => {
	const startServer = useTestServers();

	test("is HTML outside the rate limit, and escapes what a sender sent", async () => {
		const own = await startServer({
			clock: fixedClock,
			faxes: [faxRecord({ slug: "fax_odd1", sender: `<b>"AC&ME"</b> 1` })],
		});
		const response = await own.request("/faxtest/fax_odd1");
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect(response.headers.get("cache-control")).toBe("no-store, private");
		expect(response.headers.get("x-ratelimit-limit")).toBeNull();
		const html = await response.text();
		expect(html).toContain("<dt>Sender</dt><dd>&lt;b&gt;&quot;AC&amp;ME&quot;&lt;/b&gt; 1</dd>");
		expect(html).not.toContain("<b>");
		expect(html).toContain('src="https://cdn.test.example/faxes/fax_odd1-thumb.jpg"');

		const head = await own.request("/faxtest/fax_odd1", { method: "HEAD" });
		expect(head.status).toBe(200);
		expect(await head.text()).toBe("");
	});

	test("where to send a test, from the settings, on /faxtest, a fax's page and the 404 page; the 404 and 410 pages lead back to the list", async () => {
		const own = await startServer({
			clock: fixedClock,
			env: { TEST_FAX_NUMBERS: "+1 555 010 0100, +49 30 1234567", TEST_FAX_ADDRESSES: "fax@testfax.example" },
			faxes: [faxRecord({ slug: "fax_where1" }), faxRecord({ slug: "fax_gone1", removed: true })],
		});
		const sendTo = `<section id="send-to" aria-labelledby="send-to-title">
<h2 id="send-to-title">Where to send a test</h2>
<dl>
<dt>Fax by phone</dt><dd><a href="tel:+15550100100">+1 555 010 0100</a>, <a href="tel:+49301234567">+49 30 1234567</a></dd>
<dt>Scan-to-email or Internet fax (T.37)</dt><dd><a href="mailto:fax@testfax.example">fax@testfax.example</a></dd>
</dl>
</section>`;
		for (const path of ["/faxtest", "/faxtest/fax_where1", "/faxtest/fax_nothere"])
			expect([path, (await (await own.request(path)).text()).includes(sendTo)]).toEqual([path, true]);
		const back = '<a href="/faxtest">All tests of the last 24 hours</a>';
		expect(await (await own.request("/faxtest/fax_nothere")).text()).toContain(back);
		const removed = await own.request("/faxtest/fax_gone1");
		expect(removed.status).toBe(410);
		expect(await removed.text()).toContain(back);
		// Without the settings, nothing of it.
		const bare = await startServer({ clock: fixedClock });
		expect(await (await bare.request("/faxtest")).text()).not.toContain('id="send-to"');
	});

	test("/robots.txt keeps crawlers to the live list and the docs; every page has a description", async () => {
		const own = await startServer({ clock: fixedClock, faxes: [faxRecord({ slug: "fax_robots1" })] });
		const robots = await own.request("/robots.txt");
		expect([robots.status, robots.headers.get("content-type")]).toEqual([200, "text/plain; charset=utf-8"]);
		expect(await robots.text()).toBe(
			"User-agent: *\nAllow: /faxtest$\nAllow: /docs\nDisallow: /faxtest/\nDisallow: /api/\nDisallow: /cdn/\n",
		);
		for (const path of ["/faxtest", "/faxtest/fax_robots1", "/faxtest/fax_nothere"])
			expect(await (await own.request(path)).text()).toContain(
				'<meta name="description" content="A public fax test site: send a test fax by phone or email and see within 5 seconds whether it arrived, how the call went and what to change.">',
			);
	});

	test("a 404 page repeats nothing of the address asked for", async () => {
		const own = await startServer({ clock: fixedClock });
		for (const path of ["/faxtest/fax_CallUs0800123456", "/faxtest/Your%20account%20is%20closed"]) {
			const response = await own.request(path);
			const html = await response.text();
			expect({ path, status: response.status }).toEqual({ path, status: 404 });
			expect({ path, echoed: html.includes("CallUs") || html.includes("account") }).toEqual({
				path,
				echoed: false,
			});
		}
	});

	test("control characters in a sender show as visible symbols, never raw; the JSON escapes them", async () => {
		const sender = "A\u0000B\u0007C\tD\u001bE\u007fF\u0085G";
		const own = await startServer({ clock: fixedClock, faxes: [faxRecord({ slug: "fax_ctrl1", sender })] });
		const html = await (await own.request("/faxtest/fax_ctrl1")).text();
		expect(html).toContain("<dt>Sender</dt><dd>A\u2400B\u2407C\u2409D\u241bE\u2421F\ufffdG</dd>");
		const controls = [...html].filter((char) => {
			const code = char.charCodeAt(0);
			return (code < 0x20 && !"\t\n\r".includes(char)) || (code >= 0x7f && code <= 0x9f);
		});
		expect(controls).toEqual([]);
		const json = await (await own.request("/api/faxes/fax_ctrl1")).text();
		expect(json).toContain('"from":"A\\u0000B\\u0007C\\tD\\u001bE\u007fF\u0085G"');
	});
});
