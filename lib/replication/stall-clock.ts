import type { Positions } from "./litestream-metrics.ts";

/**
 * How long the replica has not confirmed a position the local database had
 * reached: the age of the oldest local position it has not confirmed, 0 when
 * it holds everything. Positions count within one Litestream process (each
 * start is a new generation), so restart() carries the backlog of the old
 * process until the new one confirms its first position: its first snapshot
 * holds the whole database. What the database held when a process started
 * is taken as on the replica unless carried: a stopped Litestream uploads
 * what is left, and a restart of the service must not look like a stall
 * while the new generation's first snapshot uploads.
 */
export class StallClock {
	/** Local positions seen, oldest first, with when they were first seen; only those the replica has not confirmed. */
	private pending: { at: number; local: number }[] = [];
	private carriedSince: number | undefined;
	/** The first local position of this process: not pending (see above). */
	private baseline: number | undefined;
	private runStartedAt: number;
	private confirmedInRun = false;

	constructor(now: number) {
		this.runStartedAt = now;
	}

	/** Feeds one reading of Litestream's positions at `now` (ms). */
	observe(positions: Positions, now: number): void {
		const { local, replica } = positions;
		const first = this.baseline === undefined;
		if (first) this.baseline = local;
		if (replica !== undefined) {
			this.confirmedInRun = true;
			this.carriedSince = undefined;
			this.pending = this.pending.filter((p) => p.local > replica);
			if (local <= replica) return;
		}
		if (first) return;
		const newest = this.pending.at(-1)?.local ?? replica ?? this.baseline ?? local;
		if (local > newest) this.pending.push({ at: now, local });
	}

	/** A new Litestream process: its positions start again, the unconfirmed time does not. */
	restart(now: number): void {
		this.carriedSince = this.unconfirmedSince();
		this.pending = [];
		this.baseline = undefined;
		this.runStartedAt = now;
		this.confirmedInRun = false;
	}

	private unconfirmedSince(): number | undefined {
		const first = this.pending[0]?.at;
		if (this.carriedSince === undefined) return first;
		return first === undefined ? this.carriedSince : Math.min(first, this.carriedSince);
	}

	/** Seconds since the replica last held everything the database had (0: it holds it now). */
	stallSeconds(now: number): number {
		const since = this.unconfirmedSince();
		return since === undefined ? 0 : (now - since) / 1000;
	}

	/**
	 * Whether this process is stuck: its replica has not moved past a local
	 * position for `stallMs`, or it has confirmed nothing in `firstSyncMs`
	 * since it started (its first snapshot is the whole database).
	 */
	stuck(now: number, stallMs: number, firstSyncMs: number): boolean {
		if (!this.confirmedInRun) {
			const behind = this.pending.length > 0 || this.carriedSince !== undefined;
			return behind && now - this.runStartedAt >= firstSyncMs;
		}
		const first = this.pending[0]?.at;
		return first !== undefined && now - first >= stallMs;
	}
}
