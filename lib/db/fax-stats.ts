import { visibleRows } from "./fax-store.ts";
import type { SqlDatabase, SqlStatement as Statement } from "./sql.ts";

const VISIBLE = visibleRows("faxes");

export interface ReceivedCounts {
	processed: number;
	notProcessable: number;
}

/**
 * What the operator's probes and metrics ask of the database. Every statement
 * is served by the received_at index, so a scrape stays cheap however many
 * faxes are kept.
 */
export class FaxStats {
	readonly #received: Statement<{ total: number; processed: number }>;
	readonly #latest: Statement<{ latest: number | null }>;

	constructor(db: SqlDatabase) {
		this.#received = db.prepare(
			`SELECT count(*) AS total, count(page_count) AS processed FROM faxes WHERE received_at > $after AND ${VISIBLE}`,
		);
		this.#latest = db.prepare(
			`SELECT received_at AS latest FROM faxes WHERE ${VISIBLE} ORDER BY received_at DESC LIMIT 1`,
		);
	}

	/** Faxes received after `after` (Unix seconds) and still listed, by whether they could be processed. */
	async receivedAfter(after: number): Promise<ReceivedCounts> {
		const row = await this.#received.get({ after });
		const total = row?.total ?? 0;
		const processed = row?.processed ?? 0;
		return { processed, notProcessable: total - processed };
	}

	/** received_at of the newest fax, Unix seconds; null when there is none. */
	async latestReceivedAt(): Promise<number | null> {
		return (await this.#latest.get())?.latest ?? null;
	}
}
