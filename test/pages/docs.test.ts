import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { REDOC_BUNDLE_FILE, REDOC_LOGO_PATH } from "../../lib/pages/index.ts";
import { type BrowserFixture, useBrowser } from "../../testkit/browser.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const browser = useBrowser();
let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

test("GET /docs is a page made on the server from the description, with no script, outside the rate limit", async () => {
	const page = await server.request("/docs");
	expect(page.status).toBe(200);
	expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
	expect(page.headers.get("x-ratelimit-limit")).toBeNull();
	const html = await page.text();
	expect(html).not.toContain("<script");
	expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
	const headings = [...html.matchAll(/<h[1-4][^>]*>(.*?)<\/h[1-4]>/g)].map(([, text]) => text);
	expect(headings).toEqual(
		expect.arrayContaining([
			"testfax API 1.1.0",
			"Waiting for a test fax",
			"Endpoints",
			"<code>GET /api/faxes</code>: List test faxes",
			"<code>GET /api/faxes/{slug}</code>: Get one test fax",
			"Fax",
		]),
	);
	for (const name of ["limit", "since", "from", "wait", "slug", "received_at", "thumbnail_url"]) {
		expect(html).toContain(`<dt><code>${name}</code>`);
	}
	for (const link of ["/docs/interactive", "/openapi.json", "/docs/API.md", "/faxtest"]) {
		expect(html).toContain(`href="${link}"`);
	}

	const script = await server.request("/docs/redoc.standalone.js");
	expect(script.status).toBe(200);
	expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
	expect(script.headers.get("cache-control")).toBe("no-store, private");
	expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

test("the Redoc bundle sent differs from the package's only in its logo's address and the worker's map comment, at the same length", async () => {
	const original = readFileSync(REDOC_BUNDLE_FILE, "utf8");
	const sent = await (await server.request("/docs/redoc.standalone.js")).text();
	expect(sent.length).toBe(original.length);
	expect(sent).not.toContain("cdn.redoc.ly");
	expect(sent.split(REDOC_LOGO_PATH).length).toBe(2);
	expect(sent).not.toMatch(/sourceMappingURL=[0-9a-f]+\.worker\.js\.map/);
	let changed = 0;
	for (let index = 0; index < original.length; index++) if (original[index] !== sent[index]) changed++;
	// The 40-character logo address (a few characters may agree by chance) and the 57-character comment less its "//".
	expect(changed).toBeGreaterThan(60);
	expect(changed).toBeLessThanOrEqual(40 + 55);

	// The map it names is served, and is the package's.
	expect(sent.trimEnd().endsWith("//# sourceMappingURL=redoc.standalone.js.map")).toBe(true);
	const map = await server.request("/docs/redoc.standalone.js.map");
	expect([map.status, map.headers.get("content-type")]).toEqual([200, "application/json; charset=utf-8"]);
	expect(await map.text()).toBe(readFileSync(`${REDOC_BUNDLE_FILE}.map`, "utf8"));

	const logo = await server.request(REDOC_LOGO_PATH);
	expect([logo.status, logo.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
	const icon = await server.request("/favicon.svg");
	expect([icon.status, icon.headers.get("content-type"), icon.headers.get("cache-control")]).toEqual([
		200,
		"image/svg+xml",
		"no-store, private",
	]);
	expect(await icon.text()).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
});

test("GET /docs/API.md is the repository's guide for API users, as text, outside the rate limit", async () => {
	const guide = await server.request("/docs/API.md");
	expect(guide.status).toBe(200);
	expect(guide.headers.get("content-type")).toBe("text/plain; charset=utf-8");
	expect(guide.headers.get("x-ratelimit-limit")).toBeNull();
	expect(await guide.text()).toBe(await Bun.file(join(import.meta.dir, "../../docs/API.md")).text());
});

/** What a reader's console and network panel would show as wrong: errors, failed requests, error statuses. */
function watchProblems(page: Page): string[] {
	const problems: string[] = [];
	page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
	page.on("console", (message) => {
		if (message.type() === "error") problems.push(`console: ${message.text()}`);
	});
	page.on("requestfailed", (request) =>
		problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
	);
	page.on("response", (response) => {
		if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
	});
	return problems;
}

async function openDocs(
	fixture: BrowserFixture,
): Promise<{ page: Page; problems: string[]; requested: string[] }> {
	const page = await fixture.newPage();
	const problems = watchProblems(page);
	const requested: string[] = [];
	page.on("request", (request) => requested.push(new URL(request.url()).pathname));
	await page.goto(`${server.baseUrl}/docs`);
	return { page, problems, requested };
}

test("in Chromium, /docs and the Redoc page it links to render both endpoints with no console error, no failed request and nothing from the internet", async () => {
	const { page, problems, requested } = await openDocs(browser);
	expect(await page.getByRole("heading", { level: 3 }).allInnerTexts()).toEqual(
		expect.arrayContaining(["GET /api/faxes: List test faxes", "GET /api/faxes/{slug}: Get one test fax"]),
	);
	await page.getByRole("link", { name: "Interactive reference" }).click();
	await page.waitForURL(`${server.baseUrl}/docs/interactive`);

	// Each endpoint's GET and HEAD operation (the HEAD named after its GET).
	await page.getByRole("heading", { name: "Get one test fax" }).first().waitFor({ timeout: 20_000 });
	expect(await page.getByRole("heading").allInnerTexts()).toEqual(
		expect.arrayContaining([
			"List test faxes",
			"List test faxes: status and headers only",
			"Get one test fax",
			"Get one test fax: status and headers only",
		]),
	);
	for (const name of ["limit", "since", "from", "slug"]) {
		expect(await page.locator(`td[kind="field"][title="${name}"]`).count()).toBeGreaterThan(0);
	}
	const text = await page.locator("body").innerText();
	expect(text).toContain("/api/faxes/{slug}");
	expect(text).toContain("Waiting for a test fax");
	expect(text).toContain("Too Many Attempts.");
	const guideLink = page.getByRole("link", { name: "docs/API.md" }).first();
	const guide = await fetch(new URL(String(await guideLink.getAttribute("href")), page.url()), {
		headers: { "user-agent": "testfax-tests/1.0" },
	});
	expect([guide.status, (await guide.text()).startsWith("# The testfax API\n")]).toEqual([200, true]);
	// The sidebar's attribution shows the logo from this server, as a loaded image.
	const logo = page.locator('a[href="https://redocly.com/redoc/"] img');
	await logo.waitFor();
	const loaded = await logo.evaluate((element) => {
		const image = element as unknown as { complete: boolean; naturalWidth: number; src: string };
		return [image.complete && image.naturalWidth > 0, new URL(image.src).pathname];
	});
	expect(loaded).toEqual([true, REDOC_LOGO_PATH]);

	const shot = await browser.screenshot(page, "docs");
	expect(existsSync(shot)).toBe(true);
	expect(requested).toEqual(
		expect.arrayContaining([
			"/docs",
			"/docs/interactive",
			"/docs/redoc.standalone.js",
			"/openapi.json",
			REDOC_LOGO_PATH,
		]),
	);
	expect(problems).toEqual([]);
	expect(browser.offsite).toEqual([]);
	await page.close();
});
