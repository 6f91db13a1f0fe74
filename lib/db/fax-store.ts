import type { Database, Statement } from "bun:sqlite";
import { type FaxRow, storedSenderKey } from "../fax/index.ts";

export type SenderFilter = { kind: "any" } | { kind: "unknown" } | { kind: "key"; key: string };

export interface ListQuery {
	/** Only faxes with received_at strictly greater (Unix seconds). */
	after: number;
	sender: SenderFilter;
	limit: number;
}

export type Lookup = { state: "found"; fax: FaxRow } | { state: "removed" } | { state: "missing" };

/** A live row with what the store orders and matches it by. */
export interface StoredFax extends FaxRow {
	/** Insertion order; never reused. */
	id: number;
	/** The `from` match key of the sender; null when it has none. */
	sender_key: string | null;
}

/** A slug removed on request or by the purge, in the order of removal. */
export interface Removal {
	seq: number;
	slug: string;
}

const COLUMNS = "slug, source, sender, received_at, page_count, file_size";
const NEWEST_FIRST = "ORDER BY received_at DESC, id DESC LIMIT $limit";

/** The list statements, one per filter shape; each is served by an index (see the plan test). */
export const LIST_SQL = {
	any: `SELECT ${COLUMNS} FROM faxes WHERE received_at > $after ${NEWEST_FIRST}`,
	unknown: `SELECT ${COLUMNS} FROM faxes WHERE sender_key IS NULL AND received_at > $after ${NEWEST_FIRST}`,
	key: `SELECT ${COLUMNS} FROM faxes WHERE sender_key = $key AND received_at > $after ${NEWEST_FIRST}`,
} as const;

/** All reads and writes of faxes go through here, as prepared statements. */
export class FaxStore {
	readonly #db: Database;
	readonly #list: { [K in keyof typeof LIST_SQL]: Statement<FaxRow> };
	readonly #bySlug: Statement<FaxRow & { id: number }>;
	readonly #isRemoved: Statement<{ removed_at: number }>;
	readonly #insert: Statement;
	readonly #delete: Statement;
	readonly #tombstone: Statement;
	readonly #expired: Statement<{ slug: string }>;
	readonly #dataVersion: Statement<{ data_version: number }>;
	readonly #newest: Statement<StoredFax>;
	readonly #insertedAfter: Statement<StoredFax>;
	readonly #lastId: Statement<{ id: number }>;
	readonly #removalsAfter: Statement<Removal>;
	readonly #lastRemoval: Statement<{ seq: number }>;
	/** Commits through this connection, which its data_version does not count. */
	#ownWrites = 0;

	constructor(db: Database) {
		this.#db = db;
		this.#list = {
			any: db.prepare(LIST_SQL.any),
			unknown: db.prepare(LIST_SQL.unknown),
			key: db.prepare(LIST_SQL.key),
		};
		this.#bySlug = db.prepare(`SELECT id, ${COLUMNS} FROM faxes WHERE slug = $slug`);
		this.#isRemoved = db.prepare("SELECT removed_at FROM removed_faxes WHERE slug = $slug");
		this.#insert = db.prepare(
			`INSERT INTO faxes (slug, source, sender, sender_key, received_at, page_count, file_size)
			 VALUES ($slug, $source, $sender, $sender_key, $received_at, $page_count, $file_size)`,
		);
		this.#delete = db.prepare("DELETE FROM faxes WHERE slug = $slug");
		this.#tombstone = db.prepare(
			"INSERT OR IGNORE INTO removed_faxes (slug, removed_at) VALUES ($slug, $removed_at)",
		);
		this.#expired = db.prepare("SELECT slug FROM faxes WHERE received_at < $cutoff");
		this.#dataVersion = db.prepare("PRAGMA data_version");
		const stored = `id, ${COLUMNS}, sender_key`;
		this.#newest = db.prepare(
			`SELECT ${stored} FROM faxes WHERE received_at > $after ORDER BY received_at DESC, id DESC LIMIT $limit`,
		);
		this.#insertedAfter = db.prepare(
			`SELECT ${stored} FROM faxes WHERE id > $id AND received_at > $after ORDER BY id`,
		);
		this.#lastId = db.prepare("SELECT coalesce(max(id), 0) AS id FROM faxes");
		this.#removalsAfter = db.prepare("SELECT seq, slug FROM removed_faxes WHERE seq > $seq ORDER BY seq");
		this.#lastRemoval = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM removed_faxes");
	}

	/**
	 * A number that differs from the one of the previous call whenever a write
	 * was committed in between, by this store or by any other connection
	 * (SQLite's data_version): one cheap statement, no table read.
	 */
	changeCount(): number {
		return (this.#dataVersion.get()?.data_version ?? 0) + this.#ownWrites;
	}

	/** Runs `work` in one read transaction: every read in it sees the same committed state. */
	snapshot<T>(work: () => T): T {
		return this.#db.transaction(work).deferred();
	}

	/** The newest live faxes received after `after` (Unix seconds), newest first. */
	newestFaxes(after: number, limit: number): StoredFax[] {
		return this.#newest.all({ after, limit });
	}

	/** Live faxes inserted after the one with id `id` and received after `after`, in insertion order. */
	faxesInsertedAfter(id: number, after: number): StoredFax[] {
		return this.#insertedAfter.all({ id, after });
	}

	/** The id of the latest inserted live fax; 0 when there is none. */
	lastFaxId(): number {
		return this.#lastId.get()?.id ?? 0;
	}

	/** Removals after the one numbered `seq`, in the order they happened. */
	removalsAfter(seq: number): Removal[] {
		return this.#removalsAfter.all({ seq });
	}

	/** The number of the latest removal; 0 when there is none. */
	lastRemoval(): number {
		return this.#lastRemoval.get()?.seq ?? 0;
	}

	list(query: ListQuery): FaxRow[] {
		const { after, sender, limit } = query;
		if (sender.kind === "key") return this.#list.key.all({ after, limit, key: sender.key });
		return this.#list[sender.kind].all({ after, limit });
	}

	/** A fax by slug; `notBefore` is the retention cutoff, older faxes count as removed. */
	lookup(slug: string, notBefore: number): Lookup {
		const fax = this.#bySlug.get({ slug });
		if (fax) {
			if (fax.received_at < notBefore) return { state: "removed" };
			const { id: _id, ...row } = fax;
			return { state: "found", fax: row };
		}
		return this.#isRemoved.get({ slug }) ? { state: "removed" } : { state: "missing" };
	}

	/** True when the slug was ever used, live or removed: slugs are never reused. */
	slugTaken(slug: string): boolean {
		return this.#bySlug.get({ slug }) !== null || this.#isRemoved.get({ slug }) !== null;
	}

	insert(fax: FaxRow): void {
		this.#ownWrites++;
		this.#insert.run({ ...fax, sender_key: storedSenderKey(fax.sender) });
	}

	/** Records a slug as removed without a live row (an imported removed fax). */
	tombstone(slug: string, removedAt: number): void {
		this.#ownWrites++;
		this.#tombstone.run({ slug, removed_at: removedAt });
	}

	/**
	 * Runs `work` in one write transaction: all of it lands or none. IMMEDIATE
	 * takes the write lock up front, so a transaction that reads before it
	 * writes waits for another writer (busy timeout) instead of failing with
	 * SQLITE_BUSY when its read snapshot turns stale.
	 */
	transaction<T>(work: () => T): T {
		return this.#db.transaction(work).immediate();
	}

	/** Removal on request; false when no live fax has this slug. */
	remove(slug: string, removedAt: number): boolean {
		this.#ownWrites++;
		return this.transaction(() => {
			if (this.#delete.run({ slug }).changes === 0) return false;
			this.#tombstone.run({ slug, removed_at: removedAt });
			return true;
		});
	}

	/** Deletes the rows of faxes older than `cutoff`, leaving tombstones; returns their slugs. */
	purgeBefore(cutoff: number, removedAt: number): string[] {
		this.#ownWrites++;
		return this.transaction(() => {
			const slugs = this.#expired.all({ cutoff }).map((row) => row.slug);
			for (const slug of slugs) {
				this.#delete.run({ slug });
				this.#tombstone.run({ slug, removed_at: removedAt });
			}
			return slugs;
		});
	}

	isEmpty(): boolean {
		return (
			this.#db.query("SELECT 1 FROM faxes LIMIT 1").get() === null &&
			this.#db.query("SELECT 1 FROM removed_faxes LIMIT 1").get() === null
		);
	}
}
