import { hostname } from "node:os";
import { type FaxRow, storedSenderKey } from "../fax/index.ts";
import { MAX_BUSY_TIMEOUT_MS } from "./open-database.ts";
import type { SqlDatabase, SqlStatement as Statement } from "./sql.ts";
import type { WriteLock } from "./write-lock.ts";

/*
 * A large import is written in short transactions, so other writers never wait
 * long, and still lands all at once: its rows carry the id of a fax_imports
 * row and stay hidden from every read (visibleRows) while that row is
 * 'loading'. One short transaction sets it 'published' and every row shows
 * at once. An import that fails is set 'abandoned' and its rows deleted; one
 * whose process died is found by the next import or purge: its process is
 * gone from this host, or, run on another host, it wrote nothing for
 * STALE_SECONDS. An owner on this host is judged by its process alone, never
 * by the wall clock, so a clock stepped forward cannot make a live import look
 * silent.
 */

/** Another process took this import for abandoned and removed it. */
export class ImportAbandonedError extends Error {}

// A loading import commits a batch at least once per busy timeout; one silent
// for twice the longest allowed timeout has died or been stopped.
const STALE_SECONDS = (2 * MAX_BUSY_TIMEOUT_MS) / 1000;
// Rows written between two looks at the clock; a batch ends after BATCH_MS.
const STEP_ROWS = 256;

const OWNER = `${hostname()}:${process.pid}`;

function unixSeconds(): number {
	return Math.floor(Date.now() / 1000);
}

/**
 * Whether the owner's process runs: "alive" or "gone" when it ran on this
 * host, "elsewhere" for a process of another host or container, which only
 * its heartbeat can tell about.
 */
function ownerState(owner: string): "alive" | "gone" | "elsewhere" {
	const colon = owner.lastIndexOf(":");
	const pid = Number(owner.slice(colon + 1));
	if (owner.slice(0, colon) !== hostname()) return "elsewhere";
	if (pid === process.pid) return "alive";
	try {
		process.kill(pid, 0);
		return "alive";
	} catch (error) {
		return (error as { code?: unknown }).code === "ESRCH" ? "gone" : "alive";
	}
}

// An import's pid on this host may since have gone to another process: one
// silent this long is dead whatever runs under its pid. A day, so that no
// step of the wall clock that NTP or a restored VM makes reaches it.
const REUSED_PID_SECONDS = 24 * 3600;

function isDead(entry: ImportRow, now: number): boolean {
	const state = ownerState(entry.owner);
	if (state === "gone") return true;
	const silentFor = now - entry.heartbeat_at;
	return silentFor > (state === "elsewhere" ? STALE_SECONDS : REUSED_PID_SECONDS);
}

interface ImportRow {
	id: number;
	owner: string;
	heartbeat_at: number;
	first_fax_id: number | null;
}

/** The statements on fax_imports and on the rows of one import. */
export class ImportStatements {
	readonly register: Statement;
	readonly heartbeat: Statement;
	readonly setFirstFaxId: Statement;
	readonly insertFax: Statement;
	readonly insertTombstone: Statement;
	readonly publish: Statement;
	readonly markAbandoned: Statement;
	readonly stateOf: Statement<{ state: string }>;
	readonly loading: Statement<ImportRow>;
	readonly abandoned: Statement<ImportRow>;
	readonly deleteFaxes: Statement;
	readonly deleteTombstones: Statement;
	readonly deleteImport: Statement;

	constructor(db: SqlDatabase) {
		this.register = db.prepare(
			"INSERT INTO fax_imports (state, owner, heartbeat_at) VALUES ('loading', ?, ?) RETURNING id",
		);
		this.heartbeat = db.prepare("UPDATE fax_imports SET heartbeat_at = ? WHERE id = ? AND state = 'loading'");
		this.setFirstFaxId = db.prepare("UPDATE fax_imports SET first_fax_id = ? WHERE id = ?");
		this.insertFax = db.prepare(
			`INSERT INTO faxes (slug, source, sender, sender_key, received_at, page_count, file_size, import_id)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		);
		this.insertTombstone = db.prepare(
			"INSERT INTO removed_faxes (slug, removed_at, import_id) VALUES (?, ?, ?)",
		);
		this.publish = db.prepare(
			`UPDATE fax_imports SET state = 'published', published_at = ?,
			 published_seq = (SELECT coalesce(max(published_seq), 0) + 1 FROM fax_imports)
			 WHERE id = ? AND state = 'loading'`,
		);
		// The heartbeat seen must still be the last: a live import that just
		// wrote a batch is not taken for abandoned.
		this.markAbandoned = db.prepare(
			"UPDATE fax_imports SET state = 'abandoned' WHERE id = ? AND state = 'loading' AND heartbeat_at <= ?",
		);
		this.stateOf = db.prepare("SELECT state FROM fax_imports WHERE id = ?");
		this.loading = db.prepare(
			"SELECT id, owner, heartbeat_at, first_fax_id FROM fax_imports WHERE state = 'loading'",
		);
		this.abandoned = db.prepare(
			"SELECT id, owner, heartbeat_at, first_fax_id FROM fax_imports WHERE state = 'abandoned'",
		);
		this.deleteFaxes = db.prepare(
			"DELETE FROM faxes WHERE id IN (SELECT id FROM faxes WHERE id >= ? AND import_id = ? LIMIT ?)",
		);
		this.deleteTombstones = db.prepare(
			"DELETE FROM removed_faxes WHERE slug IN (SELECT slug FROM removed_faxes WHERE import_id = ? LIMIT ?)",
		);
		this.deleteImport = db.prepare("DELETE FROM fax_imports WHERE id = ?");
	}
}

/** Deletes the rows of an abandoned import in short transactions, then the import itself. */
async function deleteImport(statements: ImportStatements, lock: WriteLock, entry: ImportRow): Promise<void> {
	await lock.runInBatches({
		step: async () => {
			if (
				entry.first_fax_id !== null &&
				(await statements.deleteFaxes.run(entry.first_fax_id, entry.id, STEP_ROWS)).changes > 0
			) {
				return true;
			}
			if ((await statements.deleteTombstones.run(entry.id, STEP_ROWS)).changes > 0) return true;
			await statements.deleteImport.run(entry.id);
			return false;
		},
	});
}

/**
 * Finds imports whose process died while loading and deletes their hidden
 * rows; returns how many imports were cleaned up.
 */
export async function cleanAbandonedImports(statements: ImportStatements, lock: WriteLock): Promise<number> {
	const now = unixSeconds();
	for (const entry of await statements.loading.all()) {
		if (isDead(entry, now)) {
			await lock.run(() => statements.markAbandoned.run(entry.id, entry.heartbeat_at));
		}
	}
	const abandoned = await statements.abandoned.all();
	for (const entry of abandoned) await deleteImport(statements, lock, entry);
	return abandoned.length;
}

/** One large import being written; see the comment at the top. */
export class StagedImport {
	readonly #statements: ImportStatements;
	readonly #lock: WriteLock;
	readonly #id: number;
	#firstFaxId: number | null = null;

	private constructor(statements: ImportStatements, lock: WriteLock, id: number) {
		this.#statements = statements;
		this.#lock = lock;
		this.#id = id;
	}

	/** Registers a new loading import. */
	static async begin(statements: ImportStatements, lock: WriteLock): Promise<StagedImport> {
		const { id } = (await lock.run(() => statements.register.get(OWNER, unixSeconds()))) as { id: number };
		return new StagedImport(statements, lock, id);
	}

	/**
	 * Writes the faxes, then the tombstones of the removed slugs, hidden, in
	 * transactions of about BATCH_MS; `onCommitted` hears how many are written.
	 * An aborted `signal` stops it before its next transaction, with its reason.
	 * Faxes given in received_at order, with slugs ascending, touch few index
	 * pages per batch: that keeps a large load close to one transaction's speed.
	 */
	async load(
		faxes: readonly FaxRow[],
		removedSlugs: readonly string[],
		removedAt: number,
		onCommitted: (written: number) => void,
		signal?: AbortSignal,
	): Promise<void> {
		const statements = this.#statements;
		const total = faxes.length + removedSlugs.length;
		let next = 0;
		await this.#lock.runInBatches({
			open: async () => {
				signal?.throwIfAborted();
				if ((await statements.heartbeat.run(unixSeconds(), this.#id)).changes === 0) {
					throw new ImportAbandonedError(
						`another process took this import for abandoned (no progress for ${STALE_SECONDS} s) and removed it`,
					);
				}
			},
			step: async () => {
				const end = Math.min(total, next + STEP_ROWS);
				for (; next < end; next++) {
					const fax = faxes[next];
					if (fax === undefined) {
						await statements.insertTombstone.run(
							removedSlugs[next - faxes.length] ?? "",
							removedAt,
							this.#id,
						);
						continue;
					}
					const inserted = await statements.insertFax.get(
						fax.slug,
						fax.source,
						fax.sender,
						storedSenderKey(fax.sender),
						fax.received_at,
						fax.page_count,
						fax.file_size,
						this.#id,
					);
					if (this.#firstFaxId === null) {
						this.#firstFaxId = Number((inserted as { id: number }).id);
						await statements.setFirstFaxId.run(this.#firstFaxId, this.#id);
					}
				}
				return next < total;
			},
			committed: () => onCommitted(next),
		});
	}

	/** Shows every row of the import at once, in one short transaction. */
	async publish(): Promise<void> {
		const published = await this.#lock.run(() => this.#statements.publish.run(unixSeconds(), this.#id));
		if (published.changes === 0) {
			throw new ImportAbandonedError("another process took this import for abandoned and removed it");
		}
	}

	/** Gives the import up: its hidden rows are deleted. */
	async abandon(): Promise<void> {
		const statements = this.#statements;
		const state = await this.#lock.run(async () => {
			await statements.markAbandoned.run(this.#id, Number.MAX_SAFE_INTEGER);
			return (await statements.stateOf.get(this.#id))?.state;
		});
		// Published already, or removed by another process: nothing is left to delete.
		if (state !== "abandoned") return;
		await deleteImport(statements, this.#lock, {
			id: this.#id,
			owner: OWNER,
			heartbeat_at: 0,
			first_fax_id: this.#firstFaxId,
		});
	}
}
