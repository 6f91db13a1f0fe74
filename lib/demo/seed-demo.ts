import type { FaxStore } from "../db/index.ts";
import { processDocument } from "../document/index.ts";
import { formatUtcSeconds } from "../fax/index.ts";
import { importFaxes } from "../import/index.ts";
import { writeFaxFiles } from "../storage/index.ts";
import { callEndingAt } from "./call-clock.ts";
import { demoFaxPdf } from "./demo-document.ts";

const DEMO_FILE = new URL("../../fixtures/demo-faxes.json", import.meta.url);

/** An import record without `received_at` and `file_size`, which seeding fills in. */
interface DemoRecord extends Record<string, unknown> {
	slug: string;
	minutes_ago: number;
	page_count: number | null;
	/** Its transmission report, as ingest built it from a real call or email (testkit/demo-reports.ts). */
	report?: unknown;
}

/**
 * Loads the demo faxes into an empty database, their times relative to now so a
 * first run shows a list in the default 24-hour window, a removed and an expired
 * fax. Each processed one gets a real PDF and thumbnail through the ingest
 * pipeline, so the links of a first run work and `file_size` is true; twelve
 * carry the transmission report of a real call or email: a complete phone
 * report, a call cut during a page, one cut before page 1, and an email test
 * for each verdict one can have (testkit/demo-reports.ts).
 */
export async function seedDemoFaxes(
	store: FaxStore,
	storageDir: string,
	nowSeconds: number,
): Promise<number> {
	if (!(await store.isEmpty())) return 0;
	const demo = (await Bun.file(DEMO_FILE).json()) as DemoRecord[];
	const records = [];
	const reports: [string, string][] = [];
	for (const { minutes_ago, report, ...record } of demo) {
		const receivedAt = nowSeconds - minutes_ago * 60;
		if (report !== undefined) reports.push([record.slug, JSON.stringify(callEndingAt(report, receivedAt))]);
		let fileSize: number | null = null;
		if (record.page_count !== null) {
			const processed = await processDocument(await demoFaxPdf(record.slug, record.page_count));
			if (!processed.ok) throw new Error(`demo fax ${record.slug} cannot be processed: ${processed.reason}`);
			await writeFaxFiles(storageDir, record.slug, processed);
			fileSize = processed.pdf.byteLength;
		}
		records.push({
			...record,
			file_size: fileSize,
			received_at: formatUtcSeconds(receivedAt),
		});
	}
	const result = await importFaxes(store, records, nowSeconds);
	if (!result.ok) throw new Error(`demo fixtures are invalid: ${result.errors.join("; ")}`);
	await store.write(async (writer) => {
		for (const [slug, report] of reports) await writer.report(slug, report);
	});
	return records.length;
}
