import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { useBrowser } from "../../testkit/browser.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const browser = useBrowser();
let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

test("GET /docs is an HTML page whose renderer comes from this server, outside the rate limit", async () => {
	const page = await server.request("/docs");
	expect(page.status).toBe(200);
	expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
	expect(page.headers.get("x-ratelimit-limit")).toBeNull();
	const html = await page.text();
	expect(html).toContain('<script src="/docs/redoc.standalone.js"></script>');
	expect(html).toContain('spec-url="/openapi.json"');

	const script = await server.request("/docs/redoc.standalone.js");
	expect(script.status).toBe(200);
	expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
	expect(script.headers.get("cache-control")).toBe("no-store, private");
	expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

test("GET /docs/API.md is the repository's guide for API users, as text, outside the rate limit", async () => {
	const guide = await server.request("/docs/API.md");
	expect(guide.status).toBe(200);
	expect(guide.headers.get("content-type")).toBe("text/plain; charset=utf-8");
	expect(guide.headers.get("x-ratelimit-limit")).toBeNull();
	expect(await guide.text()).toBe(await Bun.file(join(import.meta.dir, "../../docs/API.md")).text());
});

test("in Chromium, /docs renders both endpoints and their parameters with nothing from the internet", async () => {
	const page = await browser.newPage();
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") errors.push(message.text());
	});
	await page.goto(`${server.baseUrl}/docs`);

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

	const shot = await browser.screenshot(page, "docs");
	expect(existsSync(shot)).toBe(true);
	// The page's policy refuses the one thing Redoc reaches out for; nothing else goes wrong.
	expect(errors).toEqual([
		expect.stringMatching(/^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates/),
	]);
	expect(browser.offsite).toEqual([]);
	await page.close();
});
