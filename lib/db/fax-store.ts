import type { Database } from "bun:sqlite";
import { type FaxRow, storedSenderKey } from "../fax/index.ts";
import { type CallRow, CallsInProgress, type CallWrite } from "./calls-in-progress.ts";
import type { CommitSource, FreshnessSource } from "./commit-counter.ts";
import { type CommitWatch, exactWatch } from "./commit-watch.ts";
import { FaxOriginals, type OriginalFile } from "./fax-originals.ts";
import type { SqlDatabase, SqlStatement as Statement } from "./sql.ts";
import { sqliteEngine } from "./sqlite-engine.ts";
import { cleanAbandonedImports, ImportStatements, StagedImport } from "./staged-import.ts";
import { isStoreEngine, type PurgeTurn, type StoreEngine } from "./store-engine.ts";
import { WriteLock } from "./write-lock.ts";

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
	/** Its transmission report (JSON), read with it; null when it has none. */
	report: string | null;
}

/** A large import made visible, in the order of publication (staged-import.ts). */
export interface Publication {
	seq: number;
	importId: number;
}

/** A slug removed on request or by the purge, in the order of removal. */
export interface Removal {
	seq: number;
	slug: string;
}

const COLUMNS = "slug, source, sender, received_at, page_count, file_size";
const NEWEST_FIRST = "ORDER BY received_at DESC, id DESC LIMIT $limit";

/**
 * The rows every read and every removal sees: all but those of a large import
 * that is not published yet (staged-import.ts). Stated positively, so a row
 * whose import is unknown (abandoned, being cleaned up) stays hidden.
 */
export function visibleRows(table: "faxes" | "removed_faxes"): string {
	return `(${table}.import_id IS NULL OR EXISTS (SELECT 1 FROM fax_imports WHERE fax_imports.id = ${table}.import_id AND fax_imports.state = 'published'))`;
}

const VISIBLE = visibleRows("faxes");

/** The list statements, one per filter shape; each is served by an index (see the plan test). */
export const LIST_SQL = {
	any: `SELECT ${COLUMNS} FROM faxes WHERE received_at > $after AND ${VISIBLE} ${NEWEST_FIRST}`,
	unknown: `SELECT ${COLUMNS} FROM faxes WHERE sender_key IS NULL AND received_at > $after AND ${VISIBLE} ${NEWEST_FIRST}`,
	key: `SELECT ${COLUMNS} FROM faxes WHERE sender_key = $key AND received_at > $after AND ${VISIBLE} ${NEWEST_FIRST}`,
} as const;

/** The bytes of a fax's PDF and thumbnail, kept beside its row (schema version 5). */
export interface FaxFileBytes {
	pdf: Uint8Array;
	thumbnail: Uint8Array;
}

/** Which of a fax's two files. */
export type FaxFileKind = keyof FaxFileBytes;

/** What is written with a fax's row, in its transaction (schema versions 5 to 7). */
export interface KeptWithFax {
	files?: FaxFileBytes;
	/** The transmission report, as JSON (lib/report). */
	report?: string;
	/** The file as received, kept for a fax listed as not processable. */
	original?: OriginalFile;
	/** The key of the call in progress this fax ends (calls_in_progress): the fax takes its place. */
	endsCall?: string;
}

/** The writes of one transaction (FaxStore.write). */
export interface FaxWriter {
	/** Inserts a row, with the bytes of its files when it has them. */
	insert(fax: FaxRow, files?: FaxFileBytes): Promise<void>;
	/** Keeps a fax's transmission report (JSON) with its row; removed with the row. */
	report(slug: string, report: string): Promise<void>;
	/** Records a slug as removed without a live row (an imported removed fax). */
	tombstone(slug: string, removedAt: number): Promise<void>;
	/** Keeps the file as received of a not-processable fax with its row; removed with the row. */
	original(slug: string, file: OriginalFile): Promise<void>;
	/** The call in progress `callKey` became the fax `slug`. */
	callListed(callKey: string, slug: string): Promise<void>;
}

// Faxes whose files are read at once by archivedFiles.
const FILES_PAGE = 20;
// Faxes purged per step; a purge commits every BATCH_MS.
const PURGE_STEP = 100;

/** Writes a fax's row and what is kept with it. */
async function keep(writer: FaxWriter, fax: FaxRow, kept: KeptWithFax): Promise<void> {
	await writer.insert(fax, kept.files);
	if (kept.report !== undefined) await writer.report(fax.slug, kept.report);
	if (kept.original !== undefined) await writer.original(fax.slug, kept.original);
	if (kept.endsCall !== undefined) await writer.callListed(kept.endsCall, fax.slug);
}

const STORED =
	"faxes.id AS id, faxes.slug AS slug, source, sender, received_at, page_count, file_size, sender_key, report";
const WITH_REPORT = "faxes LEFT JOIN fax_reports ON fax_reports.slug = faxes.slug";

/** The statements that answer the API's reads. */
function readStatements(db: SqlDatabase) {
	return {
		list: {
			any: db.prepare<FaxRow>(LIST_SQL.any),
			unknown: db.prepare<FaxRow>(LIST_SQL.unknown),
			key: db.prepare<FaxRow>(LIST_SQL.key),
		} satisfies { [K in keyof typeof LIST_SQL]: Statement<FaxRow> },
		bySlug: db.prepare<FaxRow & { id: number }>(
			`SELECT id, ${COLUMNS} FROM faxes WHERE slug = $slug AND ${VISIBLE}`,
		),
		isRemoved: db.prepare<{ removed_at: number }>(
			`SELECT removed_at FROM removed_faxes WHERE slug = $slug AND ${visibleRows("removed_faxes")}`,
		),
		// Hidden rows count too: an import being loaded has taken its slugs.
		slugUsed: db.prepare(
			"SELECT 1 FROM faxes WHERE slug = $slug UNION ALL SELECT 1 FROM removed_faxes WHERE slug = $slug",
		),
		hasRow: db.prepare("SELECT 1 FROM faxes WHERE slug = $slug"),
		receiptSlug: db.prepare<{ slug: string }>("SELECT slug FROM receipts WHERE key = $key"),
		reportBySlug: db.prepare<{ report: string }>("SELECT report FROM fax_reports WHERE slug = $slug"),
		anyRow: db.prepare("SELECT 1 FROM faxes UNION ALL SELECT 1 FROM removed_faxes LIMIT 1"),
	};
}

/** The statements lib/recent follows the committed faxes by: insertions, removals, publications. */
function changeStatements(db: SqlDatabase) {
	return {
		newest: db.prepare<StoredFax>(
			`SELECT ${STORED} FROM ${WITH_REPORT} WHERE received_at > $after AND ${VISIBLE} ORDER BY received_at DESC, faxes.id DESC LIMIT $limit`,
		),
		insertedAfter: db.prepare<StoredFax>(
			`SELECT ${STORED} FROM ${WITH_REPORT} WHERE faxes.id > $id AND ${VISIBLE} ORDER BY faxes.id`,
		),
		lastId: db.prepare<{ id: number }>("SELECT coalesce(max(id), 0) AS id FROM faxes"),
		removalsAfter: db.prepare<Removal>("SELECT seq, slug FROM removed_faxes WHERE seq > $seq ORDER BY seq"),
		lastRemoval: db.prepare<{ seq: number }>("SELECT coalesce(max(seq), 0) AS seq FROM removed_faxes"),
		publicationsAfter: db.prepare<Publication>(
			"SELECT published_seq AS seq, id AS importId FROM fax_imports WHERE published_seq > $seq ORDER BY published_seq",
		),
		lastPublication: db.prepare<{ seq: number }>(
			"SELECT coalesce(max(published_seq), 0) AS seq FROM fax_imports",
		),
		importedFaxes: db.prepare<StoredFax>(
			`SELECT ${STORED} FROM ${WITH_REPORT} WHERE received_at > $after AND import_id = $importId AND faxes.id <= $upToId`,
		),
	};
}

/** The statements of write transactions. */
function writeStatements(db: SqlDatabase) {
	return {
		insert: db.prepare(
			`INSERT INTO faxes (slug, source, sender, sender_key, received_at, page_count, file_size)
			 VALUES ($slug, $source, $sender, $sender_key, $received_at, $page_count, $file_size)`,
		),
		delete: db.prepare(`DELETE FROM faxes WHERE slug = $slug AND ${VISIBLE}`),
		tombstone: db.prepare(
			"INSERT INTO removed_faxes (slug, removed_at) VALUES ($slug, $removed_at) ON CONFLICT DO NOTHING",
		),
		expired: db.prepare<{ slug: string }>(
			`SELECT slug FROM faxes WHERE received_at < $cutoff AND ${VISIBLE} LIMIT $limit`,
		),
		addReceipt: db.prepare("INSERT INTO receipts (key, slug) VALUES ($key, $slug)"),
		addReport: db.prepare("INSERT INTO fax_reports (slug, report) VALUES ($slug, $report)"),
		addFiles: db.prepare(
			`INSERT INTO fax_files (slug, pdf, thumbnail) VALUES ($slug, $pdf, $thumbnail)
			 ON CONFLICT (slug) DO UPDATE SET pdf = excluded.pdf, thumbnail = excluded.thumbnail`,
		),
	};
}

/** The statements on the files' bytes kept beside the rows. */
function fileStatements(db: SqlDatabase) {
	return {
		unarchived: db.prepare<{ slug: string }>(
			`SELECT slug FROM faxes WHERE slug > $after AND file_size IS NOT NULL
			 AND NOT EXISTS (SELECT 1 FROM fax_files WHERE fax_files.slug = faxes.slug) ORDER BY slug LIMIT $limit`,
		),
		filesAfter: db.prepare<{ slug: string } & FaxFileBytes>(
			`SELECT slug, pdf, thumbnail FROM fax_files WHERE slug > $after ORDER BY slug LIMIT ${FILES_PAGE}`,
		),
		size: {
			pdf: db.prepare<{ size: number }>("SELECT length(pdf) AS size FROM fax_files WHERE slug = $slug"),
			thumbnail: db.prepare<{ size: number }>(
				"SELECT length(thumbnail) AS size FROM fax_files WHERE slug = $slug",
			),
		},
		// Both engines read a slice of the value without building the rest of it.
		slice: {
			pdf: db.prepare<{ bytes: Uint8Array }>(
				"SELECT substr(pdf, CAST($from AS integer), CAST($length AS integer)) AS bytes FROM fax_files WHERE slug = $slug",
			),
			thumbnail: db.prepare<{ bytes: Uint8Array }>(
				"SELECT substr(thumbnail, CAST($from AS integer), CAST($length AS integer)) AS bytes FROM fax_files WHERE slug = $slug",
			),
		},
	};
}

/** All reads and writes of faxes go through here, as prepared statements, awaited on both engines. */
export class FaxStore {
	readonly #engine: StoreEngine;
	readonly #read: ReturnType<typeof readStatements>;
	readonly #changes: ReturnType<typeof changeStatements>;
	readonly #write: ReturnType<typeof writeStatements>;
	readonly #files: ReturnType<typeof fileStatements>;
	readonly #lock: WriteLock;
	readonly #writer: FaxWriter;
	readonly #imports: ImportStatements;
	readonly #originals: FaxOriginals;
	readonly #calls: CallsInProgress;
	#watch: Promise<CommitWatch> | undefined;

	/**
	 * On a bun:sqlite database, or an engine (engine.ts); `commitSource`
	 * "data_version" turns SQLite's WAL-index read off (FRESHNESS_CHECK).
	 */
	constructor(database: Database | StoreEngine, options: { commitSource?: CommitSource } = {}) {
		const engine = isStoreEngine(database) ? database : sqliteEngine(database, options);
		const db = engine.sql;
		this.#engine = engine;
		this.#read = readStatements(db);
		this.#changes = changeStatements(db);
		this.#write = writeStatements(db);
		this.#files = fileStatements(db);
		this.#lock = new WriteLock(engine.transactions);
		this.#imports = new ImportStatements(db);
		this.#originals = new FaxOriginals(db);
		this.#calls = new CallsInProgress(db);
		this.#writer = this.#makeWriter();
	}

	#makeWriter(): FaxWriter {
		const { insert, tombstone, addFiles, addReport } = this.#write;
		const originals = this.#originals;
		const calls = this.#calls;
		return {
			insert: async (fax, files) => {
				await insert.run({ ...fax, sender_key: storedSenderKey(fax.sender) });
				if (files) await addFiles.run({ slug: fax.slug, pdf: files.pdf, thumbnail: files.thumbnail });
			},
			report: async (slug, report) => void (await addReport.run({ slug, report })),
			tombstone: async (slug, removedAt) => void (await tombstone.run({ slug, removed_at: removedAt })),
			original: (slug, file) => originals.add(slug, file),
			callListed: (callKey, slug) => calls.listed(callKey, slug),
		};
	}

	/**
	 * A number that differs from the one of the previous call whenever a write
	 * was committed in between, by this store or by any other connection
	 * (commit-counter.ts; its data_version fallback does not count this
	 * connection's own).
	 */
	async changeCount(): Promise<number> {
		const local = this.#engine.commits;
		const count = local === undefined ? await this.#engine.readCommitCount?.() : local.count();
		return (count ?? 0) + this.#lock.commits;
	}

	/**
	 * What a server reads instead of changeCount before answering: the same
	 * count, with what it costs kept off the request path (commit-watch.ts).
	 */
	watchCommits(): Promise<CommitWatch> {
		this.#watch ??= this.#makeWatch();
		return this.#watch;
	}

	async #makeWatch(): Promise<CommitWatch> {
		const local = this.#engine.commits;
		const watch = local === undefined ? await this.#engine.watchCommits?.() : undefined;
		if (watch === undefined) return exactWatch(() => (local?.count() ?? 0) + this.#lock.commits);
		return {
			count: () => watch.count() + this.#lock.commits,
			settle: () => watch.settle(),
			behind: () => watch.behind(),
		};
	}

	/** How changeCount learns of commits (CommitCounter.source). */
	get commitSource(): FreshnessSource {
		return this.#engine.freshness;
	}

	/** Which engine holds the faxes. */
	get engine(): StoreEngine["sql"]["engine"] {
		return this.#engine.sql.engine;
	}

	/** Runs `work` in one read transaction: every read it awaits sees the same committed state. */
	snapshot<T>(work: () => Promise<T>): Promise<T> {
		return this.#engine.snapshot(work);
	}

	/** The newest live faxes received after `after` (Unix seconds), newest first. */
	newestFaxes(after: number, limit: number): Promise<StoredFax[]> {
		return this.#changes.newest.all({ after, limit });
	}

	/** Live faxes inserted after the one with id `id`, in insertion order. */
	faxesInsertedAfter(id: number): Promise<StoredFax[]> {
		return this.#changes.insertedAfter.all({ id });
	}

	/** The id of the latest inserted fax, shown or still hidden by its import; 0 when there is none. */
	async lastFaxId(): Promise<number> {
		return (await this.#changes.lastId.get())?.id ?? 0;
	}

	/** Removals after the one numbered `seq`, in the order they happened. */
	removalsAfter(seq: number): Promise<Removal[]> {
		return this.#changes.removalsAfter.all({ seq });
	}

	/** The number of the latest removal; 0 when there is none. */
	async lastRemoval(): Promise<number> {
		return (await this.#changes.lastRemoval.get())?.seq ?? 0;
	}

	/** Large imports published after the one numbered `seq`, in the order they were. */
	publicationsAfter(seq: number): Promise<Publication[]> {
		return this.#changes.publicationsAfter.all({ seq });
	}

	/** The number of the latest published large import; 0 when there is none. */
	async lastPublication(): Promise<number> {
		return (await this.#changes.lastPublication.get())?.seq ?? 0;
	}

	/**
	 * The live faxes of one large import received after `after`, up to id
	 * `upToId`: those a reader skipped while they were hidden.
	 */
	importedFaxes(importId: number, after: number, upToId: number): Promise<StoredFax[]> {
		return this.#changes.importedFaxes.all({ importId, after, upToId });
	}

	list(query: ListQuery): Promise<FaxRow[]> {
		const { after, sender, limit } = query;
		if (sender.kind === "key") return this.#read.list.key.all({ after, limit, key: sender.key });
		return this.#read.list[sender.kind].all({ after, limit });
	}

	/** A fax by slug; `notBefore` is the retention cutoff, older faxes count as removed. */
	async lookup(slug: string, notBefore: number): Promise<Lookup> {
		const fax = await this.#read.bySlug.get({ slug });
		if (fax) {
			if (fax.received_at < notBefore) return { state: "removed" };
			const { id: _id, ...row } = fax;
			return { state: "found", fax: row };
		}
		return (await this.#read.isRemoved.get({ slug })) ? { state: "removed" } : { state: "missing" };
	}

	/** True when a row has the slug, shown or still hidden by its import. */
	async hasRow(slug: string): Promise<boolean> {
		return (await this.#read.hasRow.get({ slug })) !== null;
	}

	/** True when the slug was ever used, live, removed or being imported: slugs are never reused. */
	async slugTaken(slug: string): Promise<boolean> {
		return (await this.#read.slugUsed.get({ slug })) !== null;
	}

	/**
	 * Inserts one fax, with its files' bytes and its transmission report when
	 * it has them, waiting for the write lock if another process writes.
	 */
	async insert(fax: FaxRow, kept: KeptWithFax = {}): Promise<void> {
		await this.write((writer) => keep(writer, fax, kept));
	}

	/** The transmission report (JSON) kept with a fax; null when it has none (an import, an older row). */
	async report(slug: string): Promise<string | null> {
		return (await this.#read.reportBySlug.get({ slug }))?.report ?? null;
	}

	/** The slug of the fax a receiver handed over under `key`, live or removed since; null when none was. */
	async receiptSlug(key: string): Promise<string | null> {
		return (await this.#read.receiptSlug.get({ key }))?.slug ?? null;
	}

	/**
	 * Inserts a fax a receiver handed over under `key`, unless one was already:
	 * returns the slug that is listed for the key, this fax's or the earlier
	 * one's. Both hand-overs of a race check inside the write lock, so one wins.
	 */
	insertReceived(fax: FaxRow, key: string, kept: KeptWithFax = {}): Promise<string> {
		return this.#lock.run(async () => {
			const earlier = await this.#read.receiptSlug.get({ key });
			if (earlier !== null) return earlier.slug;
			await this.#write.addReceipt.run({ key, slug: fax.slug });
			await keep(this.#writer, fax, kept);
			return fax.slug;
		});
	}

	/**
	 * The slug listed for receipt `key`, read in a write transaction: on
	 * PostgreSQL its COMMIT returns once a synchronous standby has everything
	 * committed before it, the receipt included, so a hand-over whose own
	 * COMMIT no standby confirmed is acknowledged only once one has it.
	 */
	confirmedReceiptSlug(key: string): Promise<string | null> {
		return this.#lock.run(async () => (await this.#read.receiptSlug.get({ key }))?.slug ?? null);
	}

	/**
	 * Runs `work` in one write transaction: all of it lands or none. It waits
	 * for another writer at most the busy timeout, without blocking the event
	 * loop, and then fails with a DatabaseBusyError.
	 */
	write<T>(work: (writer: FaxWriter) => Promise<T>): Promise<T> {
		return this.#lock.run(() => work(this.#writer));
	}

	/** The file as received of a live fax listed as not processable; null when none is kept. */
	async original(slug: string): Promise<{ fax: FaxRow; file: OriginalFile } | null> {
		const found = await this.#read.bySlug.get({ slug });
		const file = found === null ? null : await this.#originals.get(slug);
		if (found === null || file === null) return null;
		const { id: _id, ...fax } = found;
		return { fax, file };
	}

	/**
	 * Lists `fax` in place of the not-processable `replaced`, in one
	 * transaction: the new row with what is kept with it, the receipt keys
	 * moved to it, and `replaced` removed (410, its original with it). False
	 * when `replaced` is no longer live.
	 */
	relist(replaced: string, fax: FaxRow, kept: KeptWithFax, removedAt: number): Promise<boolean> {
		return this.#lock.run(async () => {
			if ((await this.#write.delete.run({ slug: replaced })).changes === 0) return false;
			await this.#write.tombstone.run({ slug: replaced, removed_at: removedAt });
			await keep(this.#writer, fax, kept);
			await this.#originals.moveReceipts(replaced, fax.slug);
			return true;
		});
	}

	/** Removal on request; false when no live fax has this slug. */
	remove(slug: string, removedAt: number): Promise<boolean> {
		return this.#lock.run(async () => {
			if ((await this.#write.delete.run({ slug })).changes === 0) return false;
			await this.#write.tombstone.run({ slug, removed_at: removedAt });
			return true;
		});
	}

	/** The purge's turn (StoreEngine.purgeTurn): on SQLite always this process's. */
	async purgeTurn(): Promise<PurgeTurn> {
		return (await this.#engine.purgeTurn?.()) ?? (async () => {});
	}

	/**
	 * Deletes the rows of faxes older than `cutoff`, leaving tombstones; returns
	 * their slugs. Runs in short transactions, so a purge of many faxes never
	 * holds the write lock for long; one stopped half-way is finished by the next.
	 */
	async purgeBefore(cutoff: number, removedAt: number): Promise<string[]> {
		const slugs: string[] = [];
		await this.#lock.runInBatches({
			step: async () => {
				const expired = await this.#write.expired.all({ cutoff, limit: PURGE_STEP });
				for (const { slug } of expired) {
					await this.#write.delete.run({ slug });
					await this.#write.tombstone.run({ slug, removed_at: removedAt });
					slugs.push(slug);
				}
				return expired.length === PURGE_STEP;
			},
		});
		return slugs;
	}

	/** Writes a call in progress as its feed read it so far (lib/live-calls); a listed call is left as it is. */
	putCall(row: CallWrite): Promise<void> {
		return this.#lock.run(() => this.#calls.put(row));
	}

	/** Forgets a call in progress: its feed is done with it. */
	removeCall(callKey: string): Promise<void> {
		return this.#lock.run(() => this.#calls.remove(callKey));
	}

	/** Forgets the calls whose last line came before `before` (ms): their feeds died with them. */
	removeOldCalls(before: number): Promise<number> {
		return this.#lock.run(() => this.#calls.removeOld(before));
	}

	/** The calls in progress, not listed yet, whose last line came at `since` (ms) or later; newest first. */
	shownCalls(since: number): Promise<CallRow[]> {
		return this.#calls.shown(since);
	}

	/** A call's model as its feed last wrote it (JSON), and the fax it became; null when no row is kept. */
	callRow(callKey: string): Promise<{ call: string; listed: string | null } | null> {
		return this.#calls.call(callKey);
	}

	/** The longest write transaction of this store, in milliseconds (WriteLock.longestTransactionMs). */
	longestTransactionMs(): number {
		return this.#lock.longestTransactionMs;
	}

	/** Starts a large import whose rows stay hidden until it is published (staged-import.ts). */
	beginImport(): Promise<StagedImport> {
		return StagedImport.begin(this.#imports, this.#lock);
	}

	/** Deletes the hidden rows of imports whose process died; returns how many imports. */
	cleanAbandonedImports(): Promise<number> {
		return cleanAbandonedImports(this.#imports, this.#lock);
	}

	/**
	 * Processed faxes whose files' bytes are not in the database yet (imported,
	 * or stored before schema 5), in slug order after `after`.
	 */
	async unarchivedSlugs(after: string, limit: number): Promise<string[]> {
		return (await this.#files.unarchived.all({ after, limit })).map((row) => row.slug);
	}

	/** Keeps a live fax's files' bytes beside its row; false when the row is gone meanwhile. */
	archiveFiles(slug: string, files: FaxFileBytes): Promise<boolean> {
		return this.#lock.run(async () => {
			if ((await this.#read.hasRow.get({ slug })) === null) return false;
			await this.#write.addFiles.run({ slug, pdf: files.pdf, thumbnail: files.thumbnail });
			return true;
		});
	}

	/** Every fax's files' bytes, one fax at a time (a restore writes them back to disk). */
	async *archivedFiles(): AsyncGenerator<{ slug: string } & FaxFileBytes> {
		let page = await this.#files.filesAfter.all({ after: "" });
		while (page.length > 0) {
			yield* page;
			page =
				page.length < FILES_PAGE
					? []
					: await this.#files.filesAfter.all({ after: page[page.length - 1]?.slug });
		}
	}

	/** The size in bytes of a fax's file kept in the database; null when the database does not hold it. */
	async fileSize(slug: string, kind: FaxFileKind): Promise<number | null> {
		return (await this.#files.size[kind].get({ slug }))?.size ?? null;
	}

	/** `length` bytes of a fax's file kept in the database, from byte `offset`; null when it is gone. */
	async fileSlice(
		slug: string,
		kind: FaxFileKind,
		offset: number,
		length: number,
	): Promise<Uint8Array | null> {
		return (await this.#files.slice[kind].get({ slug, from: offset + 1, length }))?.bytes ?? null;
	}

	/** Writes a consistent copy of the whole database to `path`, as a SQLite file (StoreEngine.copyTo). */
	copyTo(path: string): Promise<void> {
		return this.#engine.copyTo(path);
	}

	async isEmpty(): Promise<boolean> {
		return (await this.#read.anyRow.get()) === null;
	}

	/** One read that never stops the event loop: rejects within about a second when the database does not answer. */
	probe(): Promise<void> {
		return this.#engine.probe();
	}

	/** Closes the database connections. */
	close(): Promise<void> {
		return this.#engine.close();
	}
}
