import { type DatabaseTrouble, troubleOf } from "../db/index.ts";
import type { Logger } from "../log/index.ts";
import { errorMessage } from "../util/index.ts";

const TROUBLE_LINES: Record<DatabaseTrouble, string> = {
	unavailable: "database unavailable: requests that need it answer 503 until it answers again",
	"read-only":
		"database read-only (a standby, or a primary mid-failover): writes fail until it takes them again",
};

// While the database is in trouble it is asked this often, so its return is
// told even on an instance no probe or request asks.
const RECHECK_MS = 1000;

/**
 * The database's condition as this instance meets it: every request, probe
 * and purge that fails for a passing reason reports here. A change of
 * condition is logged once, in one line; every failure is counted by its
 * trouble (testfax_database_failures_total), not logged with its stack.
 */
export class DatabaseHealth {
	readonly #logger: Logger;
	readonly #probe: () => Promise<void>;
	readonly #monotonic: () => number;
	#recheck: Timer | undefined;
	#trouble: DatabaseTrouble | null = null;
	#since = 0;
	readonly #failures = new Map<DatabaseTrouble, number>();

	/** `probe`: one read of the database that never stops the event loop (FaxStore.probe). */
	constructor(logger: Logger, probe: () => Promise<void>, monotonic = performance.now.bind(performance)) {
		this.#logger = logger;
		this.#probe = probe;
		this.#monotonic = monotonic;
	}

	/** Failures counted since start, by trouble. */
	failures(trouble: DatabaseTrouble): number {
		return this.#failures.get(trouble) ?? 0;
	}

	/** Records `error`; false when it is no passing failure of the database (a bug: its reporter logs it whole). */
	failed(error: unknown): boolean {
		const trouble = troubleOf(error);
		if (trouble === null) return false;
		this.#failures.set(trouble, this.failures(trouble) + 1);
		if (trouble !== this.#trouble) {
			if (this.#trouble === null) this.#since = this.#monotonic();
			this.#trouble = trouble;
			// A read cannot tell a read-only database took writes again: the next write (the purge) does.
			if (trouble === "unavailable") this.#recheckUntilBack();
			this.#logger.warn({ database: trouble, reason: errorMessage(error) }, TROUBLE_LINES[trouble]);
		}
		return true;
	}

	/** The database answered a read (a probe): the trouble "unavailable" ends here, in one line. */
	answered(): void {
		if (this.#trouble === "unavailable") this.#back();
		// Read-only: reads answer, so asking on tells nothing more; the purge's next write will.
		else this.#stopRecheck();
	}

	/** The database took a write (the purge): any trouble ends here, in one line. */
	wrote(): void {
		if (this.#trouble !== null) this.#back();
	}

	#back(): void {
		const seconds = Math.round((this.#monotonic() - this.#since) / 100) / 10;
		this.#logger.info({ database: "ok", after_s: seconds, was: this.#trouble }, "database answers again");
		this.#trouble = null;
		this.#stopRecheck();
	}

	/** Stops asking the database (the instance is stopping). */
	close(): void {
		this.#stopRecheck();
	}

	#stopRecheck(): void {
		clearInterval(this.#recheck);
		this.#recheck = undefined;
	}

	/** Asks the database once (the probe); what it finds is recorded, and a failure rethrown. */
	async check(): Promise<void> {
		try {
			await this.#probe();
		} catch (error) {
			this.failed(error);
			throw error;
		}
		this.answered();
	}

	#recheckUntilBack(): void {
		if (this.#recheck !== undefined) return;
		this.#recheck = setInterval(() => this.check().catch(() => {}), RECHECK_MS);
		this.#recheck.unref();
	}
}
