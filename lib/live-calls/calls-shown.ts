import type { CommitWatch, FaxStore, SenderFilter } from "../db/index.ts";
import type { CallView, ShownCall } from "./call-view.ts";

/** Which calls a page asks for: those the same `from` selects of the listed faxes. */
export type CallFilter = SenderFilter;

// A call whose feed wrote nothing for this long is not shown: HylaFAX ends a
// silent call within minutes, so its feed died with it (a host stopped mid-call).
const SHOWN_QUIET_MS = 15 * 60_000;

type Held = ShownCall & { senderKey: string | null };

/**
 * The calls in progress as every instance shows them: read from the database,
 * awaited, when a commit was seen since the last read, so many pages and
 * streams asking at once cost one read.
 */
export class CallsShown {
	readonly #store: FaxStore;
	readonly #commits: CommitWatch;
	readonly #clock: () => number;
	#count: number | null = null;
	#calls: Held[] = [];
	#failed = false;
	#version = 0;
	#reading: Promise<void> | null = null;

	constructor(store: FaxStore, commits: CommitWatch, clock: () => number) {
		this.#store = store;
		this.#commits = commits;
		this.#clock = clock;
	}

	/** The time the calls are shown at (ms): the server's clock, as their feeds' times are. */
	now(): number {
		return this.#clock();
	}

	/** Differs from its last value whenever the calls were read anew since. */
	version(): number {
		return this.#version;
	}

	/** The calls the filter selects, newest first, as last read; none while the database cannot answer. */
	current(filter: CallFilter): ShownCall[] {
		return this.#calls.filter((call) => selects(filter, call)).map(({ senderKey: _key, ...call }) => call);
	}

	/**
	 * Null when the calls held are as the last commit seen left them; else the
	 * read that brings them, shared. It never rejects: a database away costs
	 * the pages their calls in progress, not the page.
	 */
	settle(): Promise<void> | null {
		if (this.#reading !== null) return this.#reading;
		const watching = this.#commits.settle();
		if (watching === null && this.#commits.count() === this.#count && !this.#failed) return null;
		const reading = (watching ?? Promise.resolve()).then(() => this.#read()).catch(() => this.#lost());
		this.#reading = reading.finally(() => {
			this.#reading = null;
		});
		return this.#reading;
	}

	async #read(): Promise<void> {
		const count = this.#commits.count();
		if (count === this.#count && !this.#failed) return;
		const rows = await this.#store.shownCalls(this.#clock() - SHOWN_QUIET_MS);
		this.#calls = rows.map((row) => ({
			key: row.call_key,
			from: row.sender,
			senderKey: row.sender_key,
			startedAt: row.started_at,
			view: JSON.parse(row.view) as CallView,
		}));
		this.#count = count;
		this.#failed = false;
		this.#version++;
	}

	#lost(): void {
		if (!this.#failed) this.#version++;
		this.#calls = [];
		this.#failed = true;
	}
}

function selects(filter: CallFilter, call: Held): boolean {
	if (filter.kind === "any") return true;
	if (filter.kind === "unknown") return call.senderKey === null;
	return call.senderKey === filter.key;
}
