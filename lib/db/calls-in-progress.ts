import type { SqlDatabase, SqlStatement as Statement } from "./sql.ts";

/** One call being received, as its feed last wrote it (schema version 8). */
export interface CallRow {
	/** The receiver's name for the call: its commid and its log's first time. */
	call_key: string;
	/** The sender as every view shows it: masked; null before the TSI came or when none did. */
	sender: string | null;
	/** The sender's match key (the `from` filter); null as for a fax without a sender. */
	sender_key: string | null;
	/** Milliseconds since the epoch: the call's first line, and its latest one, as the feed read them. */
	started_at: number;
	line_at: number;
	/** 1 once the session log said the call is over. */
	ended: number;
	/** JSON: what the pages show (lib/live-calls/live-view.ts). */
	view: string;
}

/** A row as the feed writes it: the view and the call's model so far (a CallReport, JSON). */
export interface CallWrite extends Omit<CallRow, "ended"> {
	ended: boolean;
	call: string;
}

// Rows read at most: the pages show the newest calls; more at once would be a flood, not testers.
const MAX_ROWS = 100;

/** The statements on calls_in_progress. */
export class CallsInProgress {
	readonly #put: Statement;
	readonly #listed: Statement;
	readonly #remove: Statement;
	readonly #removeOld: Statement;
	readonly #shown: Statement<CallRow>;
	readonly #call: Statement<{ call: string; listed: string | null }>;

	constructor(db: SqlDatabase) {
		// A call already listed stays listed: a feed's late write never brings it back.
		this.#put = db.prepare(
			`INSERT INTO calls_in_progress (call_key, sender, sender_key, started_at, line_at, ended, listed, view, call)
			 VALUES ($call_key, $sender, $sender_key, $started_at, $line_at, $ended, NULL, $view, $call)
			 ON CONFLICT (call_key) DO UPDATE SET sender = excluded.sender, sender_key = excluded.sender_key,
			 line_at = excluded.line_at, ended = excluded.ended, view = excluded.view, call = excluded.call
			 WHERE calls_in_progress.listed IS NULL`,
		);
		this.#listed = db.prepare("UPDATE calls_in_progress SET listed = $slug WHERE call_key = $call_key");
		this.#remove = db.prepare("DELETE FROM calls_in_progress WHERE call_key = $call_key");
		this.#removeOld = db.prepare("DELETE FROM calls_in_progress WHERE line_at < $before");
		this.#shown = db.prepare<CallRow>(
			`SELECT call_key, sender, sender_key, started_at, line_at, ended, view FROM calls_in_progress
			 WHERE listed IS NULL AND line_at >= $since ORDER BY started_at DESC, call_key LIMIT ${MAX_ROWS}`,
		);
		this.#call = db.prepare("SELECT call, listed FROM calls_in_progress WHERE call_key = $call_key");
	}

	async put(row: CallWrite): Promise<void> {
		await this.#put.run({ ...row, ended: row.ended ? 1 : 0 });
	}

	/** The call became the listed fax `slug`: from now on the fax is shown, not the call. */
	async listed(callKey: string, slug: string): Promise<void> {
		await this.#listed.run({ call_key: callKey, slug });
	}

	async remove(callKey: string): Promise<void> {
		await this.#remove.run({ call_key: callKey });
	}

	/** Deletes the rows whose last line came before `before` (ms): feeds that died with their call. */
	async removeOld(before: number): Promise<number> {
		return (await this.#removeOld.run({ before })).changes;
	}

	/** The calls not listed yet whose last line came at `since` (ms) or later, newest first. */
	async shown(since: number): Promise<CallRow[]> {
		return (await this.#shown.all({ since })).map((row) => ({
			...row,
			started_at: Number(row.started_at),
			line_at: Number(row.line_at),
			ended: Number(row.ended),
		}));
	}

	/** The call's model as last written, and the fax it became; null when no row is kept. */
	call(callKey: string): Promise<{ call: string; listed: string | null } | null> {
		return this.#call.get({ call_key: callKey });
	}
}
