import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { setPageHidden, useBrowser } from "../../testkit/browser.ts";
import { freePort } from "../../testkit/ports.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

const browser = useBrowser();
const PDF = join(import.meta.dir, "../../fixtures/ingest/fax-g3-2d.tif");

async function serverOnFreePort(env: Record<string, string> = {}): Promise<TestServer> {
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	return startTestServer({
		env: { PORT: String(port), CDN_BASE_URL: `${base}/cdn`, SITE_BASE_URL: base, ...env },
	});
}

let server: TestServer;
beforeAll(async () => {
	server = await serverOnFreePort();
});
afterAll(() => server.stop());

async function ingest(target: TestServer, sender: string): Promise<string> {
	const result = await runFax(["ingest", PDF, "--source", "phone", "--sender", sender], target.env);
	expect(result.code).toBe(0);
	return result.stdout.trim();
}

/** The slugs the list shows, top to bottom. */
function shownSlugs(page: Page): Promise<string[]> {
	return page
		.locator("#faxes > li")
		.evaluateAll((items) => items.map((item) => item.getAttribute("data-slug") ?? ""));
}

/** Waits until the list's first item is this fax. */
function untilOnTop(page: Page, slug: string, timeout: number): Promise<void> {
	return page.locator(`#faxes > li:first-child[data-slug="${slug}"]`).waitFor({ timeout });
}

function untilStatus(page: Page, text: RegExp, timeout: number): Promise<void> {
	return page.locator("#status", { hasText: text }).waitFor({ timeout });
}

/** Waits until the fax's thumbnail has loaded (a decoded image, not a broken one). */
async function untilThumbnailLoaded(page: Page, slug: string, deadline: number): Promise<void> {
	const image = page.locator(`li[data-slug="${slug}"] img`);
	await image.waitFor({ timeout: Math.max(1, deadline - performance.now()) });
	while (performance.now() < deadline) {
		const [complete, width] = await image.evaluate((img) => [
			Reflect.get(img, "complete"),
			Reflect.get(img, "naturalWidth"),
		]);
		if (complete === true && width > 0) return;
		await Bun.sleep(10);
	}
	throw new Error(`the thumbnail of ${slug} did not load in time`);
}

/**
 * A held request is answered by the server at 27–30 s unless the list changes.
 * A bound well below that tells "answered because the list changed" from "answered
 * at its time limit" however slow a loaded machine is; how fast it is lives in
 * the benchmarks, not here.
 */
const WELL_BEFORE_THE_HOLD_MS = 15_000;

/**
 * The page starts requests at least 3 s apart by its performance.now(); a
 * wrapper of fetch reads the same clock a little after the page decided,
 * after the page has built the request, which a loaded machine can make
 * take milliseconds longer one time than the next.
 */
const MIN_GAP_AS_SEEN_MS = 2990;

/**
 * Records when the page's script calls fetch for the API, by the page's own
 * clock: the test process hears of a request later, and later still on a
 * loaded machine. apiStarts() reads them.
 */
async function recordApiStarts(page: Page): Promise<void> {
	await page.addInitScript(() => {
		const starts: number[] = [];
		Reflect.set(globalThis, "apiStarts", starts);
		const original = globalThis.fetch;
		Reflect.set(globalThis, "fetch", (input: string, init: RequestInit) => {
			if (String(input).includes("/api/faxes?")) starts.push(performance.now());
			return original(input, init);
		});
	});
}

async function apiStarts(page: Page): Promise<number[]> {
	return (await page.evaluate(() => Reflect.get(globalThis, "apiStarts"))) as number[];
}

/** Resolves when the page's script has a held request to the API out. */
function heldRequest(page: Page): Promise<unknown> {
	return page.waitForRequest(
		(request) => request.url().includes("/api/faxes?") && request.url().includes("wait=30"),
	);
}

describe("/faxtest in Chromium", () => {
	test("a fax ingested while the page is open is brought by the request already held, thumbnail loaded, on top", async () => {
		const older = await ingest(server, "+1 555 010 0001");
		const page = await browser.newPage({ timezoneId: "Asia/Tokyo" });
		const held = heldRequest(page);
		await page.goto(`${server.baseUrl}/faxtest`);
		await held;
		expect(await shownSlugs(page)).toContain(older);
		// The request held before the ingest is the one that brings the fax: no new request is needed.
		const answered = page.waitForResponse((response) => response.url().includes("wait=30"));
		const slug = await ingest(server, "+1 555 010 0002");
		const listedAt = performance.now();
		const heldAnswer = await answered;
		expect([heldAnswer.status(), ((await heldAnswer.json()) as { slug: string }[])[0]?.slug]).toEqual([
			200,
			slug,
		]);
		await untilThumbnailLoaded(page, slug, listedAt + WELL_BEFORE_THE_HOLD_MS);
		expect((await shownSlugs(page))[0]).toBe(slug);
		const item = page.locator(`li[data-slug="${slug}"]`);
		expect(await item.locator(".from").innerText()).toBe("+155*****002");
		expect(await item.locator(".local").innerText()).toMatch(/ · your time: .* GMT\+9$/);
		// Its outcome, from its own page's verdict: a file ingested without its session log.
		await item.locator(".outcome").waitFor({ timeout: WELL_BEFORE_THE_HOLD_MS });
		expect(await item.locator(".facts").innerText()).toContain(
			" · Fax by phone · 2 pages · end of the call not known",
		);
		expect(await page.locator("#status").innerText()).toBe("Live: new tests appear here as they are listed.");
		await browser.screenshot(page, "live-page");
		await page.context().close();
	});

	test("a filter change that adds three rows asks for their outcome words in one request, and fetches no fax's page", async () => {
		const slugs: string[] = [];
		for (let i = 0; i < 3; i++) slugs.unshift(await ingest(server, "+1 555 070 0001"));
		const page = await browser.newPage();
		const asked: string[] = [];
		page.on("request", (request) => {
			const url = new URL(request.url());
			if (url.pathname.startsWith("/faxtest/")) asked.push(`${url.pathname}${url.search}`);
		});
		const held = heldRequest(page);
		await page.goto(`${server.baseUrl}/faxtest?from=%2B15550700009`);
		await held;
		await page.fill("#from", "+15550700001");
		await page.click("button[type=submit]");
		for (const slug of slugs)
			await page.locator(`li[data-slug="${slug}"] .outcome`).waitFor({ timeout: WELL_BEFORE_THE_HOLD_MS });
		expect(await shownSlugs(page)).toEqual(slugs);
		expect(asked.filter((path) => path.startsWith("/faxtest/outcomes"))).toEqual([
			`/faxtest/outcomes?slugs=${encodeURIComponent(slugs.join(","))}`,
		]);
		expect(asked.filter((path) => path.startsWith("/faxtest/fax_"))).toEqual([]);
		await page.context().close();
	});

	test("without script: the list as of the page's making, in UTC, and the from form still filters", async () => {
		const mine = await ingest(server, "+1 555 020 0001");
		const other = await ingest(server, "+1 555 020 0002");
		const page = await browser.newPage({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
		await page.goto(`${server.baseUrl}/faxtest`);
		const all = await shownSlugs(page);
		expect(all.indexOf(other)).toBeLessThan(all.indexOf(mine));
		expect(await page.locator(`li[data-slug="${mine}"] time`).innerText()).toMatch(
			/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/,
		);
		expect(await page.locator(`li[data-slug="${mine}"] .local`).isVisible()).toBe(false);
		// The same outcome words as the fax's own verdict, written by the server.
		expect(await page.locator(`li[data-slug="${mine}"] .outcome`).innerText()).toBe(
			"end of the call not known",
		);
		expect(await page.locator("#status").innerText()).toContain("reload it");
		await page.fill("#from", "+15550200001");
		await page.click("button[type=submit]");
		await page.waitForURL(/\/faxtest\?from=%2B15550200001$/);
		expect(await shownSlugs(page)).toEqual([mine]);
		expect(await page.locator("#filter-shown").innerText()).toBe(
			"Showing only the tests of +155*****001. Show all tests",
		);
		await browser.screenshot(page, "live-page-no-script-filtered");
		await page.context().close();
	});

	test("with script, the from filter keeps the number out of the address and follows only that sender", async () => {
		const mine = await ingest(server, "ACME 30");
		const page = await browser.newPage();
		const requests: string[] = [];
		page.on("request", (request) => requests.push(request.url()));
		await recordApiStarts(page);
		await page.goto(`${server.baseUrl}/faxtest`);
		await page.fill("#from", "  acme   30 ");
		const held = heldRequest(page);
		await page.click("button[type=submit]");
		await untilOnTop(page, mine, WELL_BEFORE_THE_HOLD_MS);
		expect(await shownSlugs(page)).toEqual([mine]);
		expect(page.url()).toBe(`${server.baseUrl}/faxtest`);
		await held;
		await ingest(server, "ACME 31");
		const next = await ingest(server, "Acme 30");
		await untilOnTop(page, next, WELL_BEFORE_THE_HOLD_MS);
		expect(await shownSlugs(page)).toEqual([next, mine]);
		const apiCalls = requests.filter((url) => url.includes("/api/faxes?"));
		// What was typed stays; the page says whose tests it shows, with a way back to all.
		expect(await page.inputValue("#from")).toBe("  acme   30 ");
		expect(await page.locator("#filter-shown").innerText()).toBe(
			"Showing only the tests of the sender you entered. Show all tests",
		);
		// A test that came while the page was open stands out.
		expect(await page.locator(`li[data-slug="${next}"]`).getAttribute("class")).toBe("new");
		// Never two requests within 3 s, whatever comes (a new fax included), but for the
		// visitor's own filter: it cancels the held request and asks at once.
		const starts = await apiStarts(page);
		expect(starts.length).toBeGreaterThanOrEqual(3);
		const gaps = starts.slice(2).map((start, i) => start - (starts[i + 1] ?? 0));
		expect(Math.min(...gaps)).toBeGreaterThan(MIN_GAP_AS_SEEN_MS);
		expect(apiCalls.every((url) => new URL(url).origin === server.baseUrl)).toBe(true);
		expect(apiCalls.slice(1).every((url) => new URL(url).searchParams.get("from") === "acme   30")).toBe(
			true,
		);
		await page.context().close();
	});

	test("a wall clock stepped ahead brings no two requests closer than 3 s", async () => {
		const page = await browser.newPage();
		await recordApiStarts(page);
		await page.addInitScript(() => {
			// The visitor's clock, as NTP or a resumed laptop steps it.
			const wall = Date.now;
			let offset = 0;
			Date.now = () => wall() + offset;
			Reflect.set(globalThis, "stepWallClock", (ms: number) => {
				offset += ms;
			});
		});
		const held = heldRequest(page);
		await page.goto(`${server.baseUrl}/faxtest`);
		await held;
		await page.evaluate(() => Reflect.get(globalThis, "stepWallClock")(60_000));
		const fax = await ingest(server, "+1 555 050 0777");
		await untilOnTop(page, fax, WELL_BEFORE_THE_HOLD_MS);
		await page.waitForFunction(() => Reflect.get(globalThis, "apiStarts").length >= 2, undefined, {
			timeout: WELL_BEFORE_THE_HOLD_MS,
		});
		const [first = 0, second = 0] = await apiStarts(page);
		expect(second - first).toBeGreaterThan(MIN_GAP_AS_SEEN_MS);
		await page.context().close();
	});

	test("a hidden tab makes no request; shown again, it catches up at once", async () => {
		const page = await browser.newPage();
		const held = heldRequest(page);
		await page.goto(`${server.baseUrl}/faxtest`);
		await held;
		const calls: string[] = [];
		page.on("request", (request) => {
			if (request.url().includes("/api/faxes?")) calls.push(request.url());
		});
		const setHidden = (hidden: boolean) => setPageHidden(page, hidden);
		await setHidden(true);
		const slug = await ingest(server, "+1 555 040 0001");
		await Bun.sleep(3500);
		expect(calls).toEqual([]);
		expect(await shownSlugs(page)).not.toContain(slug);
		expect(await page.locator("#status").innerText()).toBe("Paused while this tab is hidden.");
		await setHidden(false);
		await page.locator(`li[data-slug="${slug}"]`).waitFor({ timeout: WELL_BEFORE_THE_HOLD_MS });
		expect(calls.length).toBe(1);
		await page.context().close();
	});

	test("on 429 it waits Retry-After; with the server gone it retries with growing pauses", async () => {
		// In real time: the pauses are the page's own timers, in Chromium.
		const limited = await serverOnFreePort({ RATE_LIMIT_PER_MINUTE: "1" });
		try {
			const page = await browser.newPage();
			const held = heldRequest(page);
			await page.goto(`${limited.baseUrl}/faxtest`);
			await held;
			await ingest(limited, "+1 555 050 0001");
			await untilStatus(page, /^Paused:/, 6000);
			expect(await page.locator("#status").innerText()).toMatch(
				/^Paused: this network asked the API too often: trying again in \d+ s\. The list below is as it was\.$/,
			);
			await limited.stop();
			// Shown again (the tab was never hidden): it asks at once instead of after Retry-After.
			await page.evaluate(() =>
				Reflect.get(globalThis, "document").dispatchEvent(
					new (Reflect.get(globalThis, "Event"))("visibilitychange"),
				),
			);
			await untilStatus(page, /^The server cannot/, 6000);
			expect(await page.locator("#status").innerText()).toMatch(
				/^The server cannot be reached: trying again in 2 s\. The list below is as it was\.$/,
			);
			await untilStatus(page, /in [345] s\./, 4000);
			await page.context().close();
		} finally {
			await limited.stop();
		}
	});
});

describe("GET /faxtest over HTTP", () => {
	test("GET /faxtest/outcomes: each held fax's words, a slug not held left out; more than 100 slugs or a malformed one is a 400 saying so", async () => {
		const slug = await ingest(server, "+1 555 080 0001");
		const answer = await server.request(`/faxtest/outcomes?slugs=${slug},fax_NotThere123`);
		expect([answer.status, answer.headers.get("content-type"), await answer.json()]).toEqual([
			200,
			"application/json; charset=utf-8",
			{ [slug]: "end of the call not known" },
		]);
		expect(await (await server.request("/faxtest/outcomes")).json()).toEqual({});
		const message = { message: "slugs is a comma-separated list of at most 100 slugs (fax_…)" };
		for (const slugs of [Array.from({ length: 101 }, () => slug).join(","), `${slug},<b>`]) {
			const refused = await server.request(`/faxtest/outcomes?slugs=${encodeURIComponent(slugs)}`);
			expect([refused.status, await refused.json()]).toEqual([400, message]);
		}
	});

	test("the pages' security headers, a policy with no inline script, a form to itself, its script from this origin", async () => {
		const answer = await server.request("/faxtest");
		expect(answer.status).toBe(200);
		expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect(answer.headers.get("x-frame-options")).toBe("DENY");
		expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
		expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
		expect(answer.headers.get("x-ratelimit-limit")).toBeNull();
		const policy = answer.headers.get("content-security-policy") ?? "";
		expect(policy).toMatch(
			new RegExp(
				`^default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src 'self' ${server.baseUrl}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'$`,
			),
		);
		const html = await answer.text();
		expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/faxtest/live.js" defer>']);
		// The list's ETag is the API's for the same list: the script's first request already waits.
		const api = await server.request("/api/faxes?limit=100");
		expect(html).toContain(`data-etag="${(api.headers.get("etag") ?? "").replaceAll('"', "&quot;")}"`);
		const script = await server.request("/faxtest/live.js");
		expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
		expect(await script.text()).toContain("WAIT_SECONDS = 30");
	});

	test("a listed fax's outcome words are kept with it in memory: no answer of /faxtest, its rows' words or its page reads the reports again (deleted under the server)", async () => {
		const own = await serverOnFreePort();
		try {
			const slug = await ingest(own, "+1 555 030 0001");
			expect(await (await own.request("/faxtest")).text()).toContain(
				`<span class="pages">2 pages</span> · <span class="outcome">end of the call not known</span>`,
			);
			const db = new Database(own.env.DATABASE_PATH ?? "");
			const page = await own.request(`/faxtest/${slug}`);
			db.run("DELETE FROM fax_reports");
			db.close();
			const answer = await own.request("/faxtest?from=%2B15550300001");
			expect(answer.status).toBe(200);
			// A list state not shown before: its page is made now, its row's words from memory.
			expect(await answer.text()).toContain(`<span class="outcome">end of the call not known</span>`);
			const words = await own.request(`/faxtest/outcomes?slugs=${slug}`);
			expect(await words.json()).toEqual({ [slug]: "end of the call not known" });
			const again = await own.request(`/faxtest/${slug}`);
			expect(again.status).toBe(200);
			expect(await again.text()).toBe(await page.text());
		} finally {
			await own.stop();
		}
	});

	test("a from longer than the API takes shows all tests and says why; what was entered is never written back, only a listed fax's masked sender", async () => {
		const html = await (await server.request(`/faxtest?from=${"9".repeat(256)}`)).text();
		expect(html).toContain('<p role="alert">A sender has at most 255 characters: showing all tests.</p>');
		expect(html).not.toContain("9".repeat(256));
		await ingest(server, "+1 555 060 0001");
		const masked = await (await server.request("/faxtest?from=%2B1%20555%20060%200001")).text();
		expect(masked).toContain("Showing only the tests of <strong>+155*****001</strong>");
		expect(masked).not.toContain("5550600001");
		// Words in a link are never put on the page: only a listed fax's masked sender is.
		const spoof = await (await server.request("/faxtest?from=Your%20test%20failed%2C%20call%20us")).text();
		expect(spoof).toContain("Showing only the tests of the sender you entered.");
		expect(spoof).not.toContain("call us");
	});
});
