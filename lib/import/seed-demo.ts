import type { FaxStore } from "../db/fax-store.ts";
import { formatUtcSeconds } from "../fax/time.ts";
import { importFaxes } from "./import-faxes.ts";

const DEMO_FILE = new URL("../../fixtures/demo-faxes.json", import.meta.url);

interface DemoRecord extends Record<string, unknown> {
	minutes_ago: number;
}

/**
 * Loads the demo faxes into an empty database, their times relative to now so a
 * first run shows a list in the default 24-hour window, a removed and an expired fax.
 */
export async function seedDemoFaxes(store: FaxStore, nowSeconds: number): Promise<number> {
	if (!store.isEmpty()) return 0;
	const demo = (await Bun.file(DEMO_FILE).json()) as DemoRecord[];
	const records = demo.map(({ minutes_ago, ...record }) => ({
		...record,
		received_at: formatUtcSeconds(nowSeconds - minutes_ago * 60),
	}));
	const result = importFaxes(store, records, nowSeconds);
	if (!result.ok) throw new Error(`demo fixtures are invalid: ${result.errors.join("; ")}`);
	return records.length;
}
