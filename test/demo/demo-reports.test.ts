// The demo's transmission reports are what ingest builds from the real calls
// and emails kept as fixtures (testkit/demo-reports.ts writes them).
import { expect, test } from "bun:test";
import { verdictOf } from "../../lib/report/index.ts";
import { DEMO_FILE, demoReports } from "../../testkit/demo-reports.ts";
import { startTestServer } from "../../testkit/server.ts";

/** Each demo fax with a report, and its verdict's rule: every one an email test can have. */
const RULES = {
	fax_DemoStation1: "all-good",
	fax_DemoBerlin01: "ended-after-page",
	fax_DemoStation2: "ended-before-first-page",
	fax_DemoEmail001: "all-good",
	fax_DemoBroken01: "email-no-attachment",
	fax_DemoScanOk01: "all-good",
	fax_DemoScanRej1: "email-refused-elsewhere",
	fax_DemoScanSpm1: "email-spam-elsewhere",
	fax_DemoScanClk1: "email-clock",
	fax_DemoTiffNoF1: "tiff-not-tiff-f",
	fax_DemoTiffOnly: "tiff-not-t37",
	fax_DemoTooBig01: "email-not-taken",
};

test("the demo faxes' reports are ingest's reports of real calls and emails, each with its verdict: every verdict an email test can have", async () => {
	const demo = (await Bun.file(DEMO_FILE).json()) as { slug: string; report?: unknown }[];
	const reports = await demoReports();
	const kept = Object.fromEntries(
		demo.filter((fax) => fax.report !== undefined).map((fax) => [fax.slug, fax.report]),
	);
	expect(kept).toEqual(JSON.parse(JSON.stringify(reports)));
	expect(
		Object.fromEntries(Object.entries(reports).map(([slug, report]) => [slug, verdictOf(report).rule])),
	).toEqual(RULES);
});

/** A call's timeline ends at the time the fax was received, as a real call's does. */
function expectTimedAsReceived(slug: string, html: string): void {
	const received = /<time datetime="\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)Z"/.exec(html)?.[1];
	const timeline = /<ol id="timeline">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? "";
	const times = [...timeline.matchAll(/<time>(\d\d:\d\d:\d\d)<\/time>/g)].map((match) => match[1]);
	expect([slug, times.length > 1, times.at(-1)]).toEqual([slug, true, received]);
}

test("a first run's demo shows each of them on its fax's page: the verdict, and for the calls the timeline, timed to end when the fax was received", async () => {
	const server = await startTestServer({ env: { SEED_DEMO: "1" } });
	try {
		const rules: Record<string, string | undefined> = {};
		for (const slug of Object.keys(RULES)) {
			const html = await (await server.request(`/faxtest/${slug}`)).text();
			rules[slug] = /data-rule="([^"]+)"/.exec(html)?.[1];
			if (slug.includes("Station") || slug.includes("Berlin")) expectTimedAsReceived(slug, html);
		}
		expect(rules).toEqual(RULES);
	} finally {
		await server.stop();
	}
});
