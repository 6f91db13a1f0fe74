import { afterAll, beforeAll } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";

/** The system's Chromium (Debian's `chromium` package); playwright-core downloads no browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Headless and quiet: no sandbox (tests may run as root), and nothing that
// reaches for the network on its own (updates, sync, first-run pages).
// Playwright starts it with a fresh --user-data-dir of its own each time.
const FLAGS = [
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];

/** Where tests write what a person would look at (screenshots); git-ignored. */
export const TEST_OUTPUT = join(import.meta.dir, "..", "test-output");

export interface BrowserFixture {
	/**
	 * A page in a fresh context (options: time zone, locale, script off).
	 * Requests that would leave this machine are refused and recorded.
	 */
	newPage(options?: BrowserContextOptions): Promise<Page>;
	/** Every request that tried to leave this machine, so a test can require none. */
	readonly offsite: string[];
	/** Writes a full-page screenshot to test-output/<name>.png and returns its path. */
	screenshot(page: Page, name: string): Promise<string>;
}

function isLoopback(url: string): boolean {
	const { protocol, hostname } = new URL(url);
	if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true;
	// The browser's own pages and extensions (its PDF viewer) come from inside it.
	if (protocol === "chrome:" || protocol === "chrome-extension:") return true;
	return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

/** One headless Chromium for the test file that calls it; closed after the file. */
export function useBrowser(): BrowserFixture {
	let browser: Browser | undefined;
	const offsite: string[] = [];
	beforeAll(async () => {
		browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
	});
	afterAll(async () => {
		await browser?.close();
	});
	return {
		offsite,
		async newPage(options = {}) {
			if (browser === undefined) throw new Error("useBrowser(): used before its beforeAll ran");
			const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
			await context.route("**/*", (route) => {
				const url = route.request().url();
				if (isLoopback(url)) return route.continue();
				offsite.push(url);
				return route.abort("blockedbyclient");
			});
			return context.newPage();
		},
		async screenshot(page, name) {
			mkdirSync(TEST_OUTPUT, { recursive: true });
			const path = join(TEST_OUTPUT, `${name}.png`);
			await page.screenshot({ path, fullPage: true });
			return path;
		},
	};
}

/**
 * Tells the page its tab was hidden or shown, as a browser tells it:
 * headless Chromium has no tab to hide (Page Visibility).
 */
export function setPageHidden(page: Page, hidden: boolean): Promise<void> {
	return page.evaluate((value) => {
		const document = Reflect.get(globalThis, "document");
		Object.defineProperty(document, "hidden", { value, configurable: true });
		Object.defineProperty(document, "visibilityState", {
			value: value ? "hidden" : "visible",
			configurable: true,
		});
		document.dispatchEvent(new (Reflect.get(globalThis, "Event"))("visibilitychange"));
	}, hidden);
}
