import { SQL } from "bun";
import type { CommitWatch } from "../commit-watch.ts";
import { answeredWithin, CONNECT_TIMEOUT_SECONDS } from "./errors.ts";

/**
 * On a hot standby, a request is answered with a commit count read at most
 * this long before it arrived: what the tick of the held lists waits between
 * two looks (lib/hold), on top of the replication delay every standby has.
 */
export const STANDBY_STALENESS_MS = 10;
// A check not answered in this long fails the requests waiting for it, and
// every held one (503, retried on another instance by the front); the next
// request tries again. Well under the 2 s a client whose instance lost its
// database may wait beyond its `wait`.
const CHECK_TIMEOUT_MS = 1_500;

/** fax_commits and the node's role, as one check reads them. */
export interface CommitPosition {
	count: number;
	standby: boolean;
}

export const POSITION_SQL = "SELECT n, pg_is_in_recovery() AS standby FROM fax_commits";

interface Check {
	sentAt: number;
	done: Promise<void>;
}

/**
 * The fax_commits row read asynchronously, on a connection of its own in the
 * server's thread (Bun.SQL), so that no request waits with the event loop
 * stopped. Checks are shared: on a primary, every request waits for a check
 * sent after it arrived, and all the requests that arrive while one check is
 * on the wire share the next; on a standby, a check sent less than
 * STANDBY_STALENESS_MS before a request serves it without waiting.
 */
export class PostgresCommitWatch implements CommitWatch {
	readonly #sql: SQL;
	#position: CommitPosition;
	/** When the check that read #position was sent (performance.now). */
	#readAt: number;
	#inFlight: Check | null = null;
	#queued: Promise<void> | null = null;

	/** `first`: the position read by the caller just now, before anything it answers from. */
	constructor(url: string, first: CommitPosition) {
		this.#sql = new SQL(url, { max: 1, idleTimeout: 0, connectionTimeout: CONNECT_TIMEOUT_SECONDS });
		this.#position = first;
		this.#readAt = performance.now();
	}

	count(): number {
		return this.#position.count;
	}

	behind(): void {
		this.#readAt = Number.NEGATIVE_INFINITY;
	}

	settle(): Promise<void> | null {
		if (!this.#position.standby) return this.#after(this.#inFlight);
		const oldest = performance.now() - STANDBY_STALENESS_MS;
		if (this.#readAt >= oldest) return null;
		const inFlight = this.#inFlight;
		if (inFlight !== null && inFlight.sentAt >= oldest) return inFlight.done;
		return this.#after(inFlight);
	}

	/** A check sent once `inFlight` (sent before the caller came) is answered: the callers since share it. */
	#after(inFlight: Check | null): Promise<void> {
		if (inFlight === null) return this.#send().done;
		if (this.#queued === null) {
			const next = () => {
				this.#queued = null;
				return this.#send().done;
			};
			this.#queued = inFlight.done.then(next, next);
		}
		return this.#queued;
	}

	#send(): Check {
		const sentAt = performance.now();
		const check: Check = { sentAt, done: this.#read(sentAt) };
		this.#inFlight = check;
		// Failures reach the requests that wait; a check nobody waits for fails quietly.
		check.done.then(
			() => this.#finished(check),
			() => this.#finished(check),
		);
		return check;
	}

	#finished(check: Check): void {
		if (this.#inFlight === check) this.#inFlight = null;
	}

	async #read(sentAt: number): Promise<void> {
		const rows = await answeredWithin(this.#sql.unsafe(POSITION_SQL), CHECK_TIMEOUT_MS);
		const row = (rows as { n: string | number; standby: boolean }[])[0];
		if (sentAt >= this.#readAt) {
			this.#position = { count: Number(row?.n ?? 0), standby: row?.standby === true };
			this.#readAt = sentAt;
		}
	}

	close(): void {
		this.#sql.close().catch(() => {});
	}
}
