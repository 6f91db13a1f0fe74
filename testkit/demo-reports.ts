/**
 * The transmission reports of the demo faxes (fixtures/demo-faxes.json), as
 * ingest builds them from real calls and emails kept as fixtures: the demo
 * shows what a real test shows. `npm test` checks the demo file against
 * them (test/demo/demo-reports.test.ts); `bun testkit/demo-reports.ts`
 * writes them into it.
 */
import { join } from "node:path";
import { parseFaxEmail } from "../lib/document/index.ts";
import { maskSender } from "../lib/fax/index.ts";
import { buildReport, checkedEmailReport, type FaxReport, NO_PAGE_REASON } from "../lib/report/index.ts";
import { demoEmailReports } from "./demo-emails.ts";

const ROOT = join(import.meta.dir, "..");
export const DEMO_FILE = join(ROOT, "fixtures/demo-faxes.json");
const read = (path: string) => Bun.file(join(ROOT, path));

/** A call's report, its session log's TSI replaced by the demo fax's sender. */
async function callReport(call: string, tsi: string, options: { file: boolean; reason: string | null }) {
	// In the receiving log, the sending iaxmodem's TSI is the only "IAXmodem".
	const log = (await read(`fixtures/hylafax/${call}/receiver.log`).text()).replaceAll("IAXmodem", tsi);
	const bytes = options.file
		? new Uint8Array(await read(`fixtures/hylafax/${call}/received.tif`).arrayBuffer())
		: new Uint8Array();
	const report = buildReport({
		source: "phone",
		bytes,
		email: null,
		relayedByUs: false,
		...(options.file ? {} : { reason: NO_PAGE_REASON }),
		hylafax: { log, reason: options.reason, callOnly: !options.file },
	});
	// The file's own TSI too, as the log's: the demo fax's sender.
	return report.session === null
		? report
		: { ...report, session: { ...report.session, stationId: maskSender(tsi) } };
}

async function emailReport(name: string): Promise<FaxReport> {
	const bytes = new Uint8Array(await read(`fixtures/ingest/${name}`).arrayBuffer());
	const email = await parseFaxEmail(bytes);
	const reason = email.attachment === null ? "email has no PDF or TIFF attachment" : undefined;
	const report = buildReport({
		source: "email",
		bytes,
		email,
		relayedByUs: false,
		...(reason ? { reason } : {}),
	});
	// The scan read page by page, as ingest adds it; no authentication: the demo's emails were not relayed by us.
	return report.email === null
		? report
		: { ...report, email: await checkedEmailReport(report.email, email, bytes, null) };
}

/** Each demo fax's report, by slug. */
export async function demoReports(): Promise<Record<string, FaxReport>> {
	return {
		fax_DemoStation1: await callReport("clean", "ACME 42", { file: true, reason: null }),
		fax_DemoBerlin01: await callReport("killpage2", "+49 30 12345678", {
			file: true,
			reason: "Failed to properly detect high-speed data carrier.",
		}),
		fax_DemoStation2: await callReport("killtrain", "FAX 1234567", {
			file: false,
			reason: "Failed to properly detect high-speed data carrier.",
		}),
		fax_DemoEmail001: await emailReport("t37-tiff-f.eml"),
		fax_DemoBroken01: await emailReport("no-attachment.eml"),
		...(await demoEmailReports()),
	};
}

if (import.meta.main) {
	const reports = await demoReports();
	const demo = (await Bun.file(DEMO_FILE).json()) as { slug: string; report?: FaxReport }[];
	const written = demo.map(({ report: _old, ...record }) =>
		reports[record.slug] === undefined ? record : { ...record, report: reports[record.slug] },
	);
	await Bun.write(DEMO_FILE, `${JSON.stringify(written, null, "\t")}\n`);
	// As the repository keeps every JSON file: `npm test` runs biome ci over them.
	Bun.spawnSync([join(ROOT, "node_modules/.bin/biome"), "format", "--write", DEMO_FILE]);
}
