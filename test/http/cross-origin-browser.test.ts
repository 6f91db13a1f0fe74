import { afterAll, expect, test } from "bun:test";
import { useBrowser } from "../../testkit/browser.ts";
import { faxRecord } from "../../testkit/fixtures.ts";
import { useTestServers } from "../../testkit/server.ts";

// A script on another site polls the API from a real Chromium: what the
// browser lets it read is what CORS exposes, and a conditional poll needs the
// ETag it read.

const browser = useBrowser();
const start = useTestServers();

// The page a third-party dashboard would be: another origin than the API's.
const site = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	fetch: () =>
		new Response("<!doctype html><title>dashboard</title>", { headers: { "content-type": "text/html" } }),
});
afterAll(() => site.stop(true));

test("a script on another origin reads the ETag and the rate-limit headers, and its conditional poll gets a 304", async () => {
	const api = await start({
		faxes: [faxRecord({ slug: "fax_crossOrigin1" })],
		env: { RATE_LIMIT_PER_MINUTE: "60" },
	});
	const page = await browser.newPage();
	await page.goto(`http://127.0.0.1:${site.port}/`);
	const seen = await page.evaluate(async (list) => {
		const first = await fetch(list);
		const etag = first.headers.get("etag");
		const slugs = ((await first.json()) as { slug: string }[]).map((fax) => fax.slug);
		const again = await fetch(list, { headers: etag === null ? {} : { "If-None-Match": etag } });
		return {
			slugs,
			etagSeen: etag !== null,
			limit: first.headers.get("x-ratelimit-limit"),
			remaining: again.headers.get("x-ratelimit-remaining"),
			status: again.status,
			sameEtag: again.headers.get("etag") === etag,
		};
	}, `${api.baseUrl}/api/faxes`);
	expect(seen).toEqual({
		slugs: ["fax_crossOrigin1"],
		etagSeen: true,
		limit: "60",
		remaining: "58",
		status: 304,
		sameEtag: true,
	});
	expect(browser.offsite).toEqual([]);
});
