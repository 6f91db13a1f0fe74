import { SQL } from "bun";
import { answeredWithin } from "./errors.ts";

// Readiness must turn false within a second of the database going away: a
// probe not answered in this long fails.
const PROBE_TIMEOUT_MS = 1000;

/**
 * Reads fax_commits on a connection of its own in the server's thread
 * (Bun.SQL), so a database that stopped answering fails the probe in time
 * instead of holding the event loop as the synchronous bridge would.
 */
export class PostgresProbe {
	readonly #sql: SQL;

	constructor(url: string) {
		this.#sql = new SQL(url, { max: 1, idleTimeout: 0, connectionTimeout: PROBE_TIMEOUT_MS / 1000 });
	}

	async probe(): Promise<void> {
		await answeredWithin(this.#sql.unsafe("SELECT n FROM fax_commits"), PROBE_TIMEOUT_MS);
	}

	close(): void {
		this.#sql.close().catch(() => {});
	}
}
