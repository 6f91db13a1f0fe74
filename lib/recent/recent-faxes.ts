import type { CommitWatch, FaxStore, ListQuery, Removal, StoredFax } from "../db/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { Representation } from "../representation/index.ts";
import { type Entry, firstAfter, isBefore, mergeEntries, newestJson } from "./entries.ts";

/** A fax by slug as the API answers it. */
export type FaxLookup =
	| { state: "found"; answer: Representation }
	| { state: "removed" }
	| { state: "missing" };

/** What a refresh found committed since the last one. */
export interface FaxChange {
	/** Match keys of the senders whose faxes came or went; null stands for the faxes without a sender. */
	senders: ReadonlySet<string | null>;
	/**
	 * Rows memory does not hold came or went (older than its window, or hidden
	 * until their import is published): any list answer may differ.
	 */
	unattributed: boolean;
}

export interface RecentFaxesOptions {
	/** Seconds back from the request time that memory holds: the default list's 24 hours and a margin. */
	windowSeconds?: number;
	/** Most faxes held; past it the oldest go and older answers come from SQLite. */
	maxEntries?: number;
	/** A fax's outcome in a few words, from its transmission report (JSON); made once per fax held. */
	outcomeOf?: (report: string | null) => string | null;
}

const DEFAULT_WINDOW_SECONDS = 25 * 3600;
const DEFAULT_MAX_ENTRIES = 100_000;
// Faxes leaving the window are dropped in steps of a minute, not one by one.
const EVICTION_STEP_SECONDS = 60;
const REMOVED: FaxLookup = { state: "removed" };
// The list answers remembered between two changes, in characters of their
// keys and texts (a few hundred polls of 100 faxes); past it they start over.
const MAX_ANSWER_CHARS = 4_000_000;
// What a remembered answer costs beyond its characters (the map entry, two
// string headers), counted so that many empty answers to distinct queries
// (`from=` of random senders) stay as bounded as a few long ones.
const ANSWER_OVERHEAD_CHARS = 64;

/** What one refresh read, in one snapshot, before any of it is applied. */
interface ReadChanges {
	removals: Removal[];
	imported: { seq: number; rows: StoredFax[] }[];
	inserted: StoredFax[];
	lastId: number;
}

/**
 * The newest faxes in memory, each with its JSON text and its outcome's words,
 * so that the answers clients poll for are a binary search and a join of
 * remembered texts.
 *
 * Memory holds every live fax received after `coveredAfter`: all of the
 * window, or its newest `maxEntries`. A list answer is taken from memory when
 * it asks for nothing older, or when memory alone already has `limit` matching
 * faxes (they are then the newest ones of all); otherwise the database
 * answers, awaited, as it does for a slug not held here.
 *
 * Every answer starts with `settle()`: whether anything was committed since
 * the last one (FaxStore.watchCommits: on SQLite one read of its WAL index
 * header; on PostgreSQL a shared asynchronous check,
 * lib/db/postgres/commit-watch.ts); if so, the rows inserted since (by id,
 * which is never reused) and the removals recorded since (by their number)
 * are read in one snapshot, awaited, and applied at once, so no answer sees
 * half of a refresh. Requests arriving meanwhile share that refresh. A commit
 * by another process is therefore seen by the very next request (on a hot
 * standby, once replayed and at most one tick later), without any full
 * reload. A large import writes its rows hidden and shows them all at once
 * when it is published: their ids were passed over while hidden, so the rows
 * of each import published since are read by import.
 *
 * A list answer depends on nothing but the query and the committed faxes
 * (memory and the database answer alike), so each is remembered until the
 * next commit: the clients polling the same question in one second get the
 * same text, joined once.
 */
export class RecentFaxes {
	readonly #store: FaxStore;
	readonly #commits: CommitWatch;
	readonly #json: (row: FaxRow) => string;
	readonly #outcomeOf: (report: string | null) => string | null;
	readonly #windowSeconds: number;
	readonly #maxEntries: number;
	/** Oldest first. */
	#entries: Entry[] = [];
	#bySlug = new Map<string, Entry>();
	/** Oldest first, per sender match key; null holds the faxes without a sender. */
	#bySender = new Map<string | null, Entry[]>();
	#coveredAfter: number;
	#changeCount: number;
	#lastId = 0;
	#lastRemoval = 0;
	/** List answers by query, since the last commit, each compressed at most once. */
	#answers = new Map<string, Representation>();
	#answerChars = 0;
	/** Moves with every change applied: an answer read from the database before it is not remembered. */
	#generation = 0;
	/** Lists being read from the database, by the key of their answer. */
	#reading = new Map<string, { generation: number; answer: Promise<Representation> }>();
	#lastPublication = 0;
	#refreshing: Promise<void> | null = null;
	#onChange: ((change: FaxChange) => void) | undefined;

	private constructor(
		store: FaxStore,
		commits: CommitWatch,
		json: (row: FaxRow) => string,
		nowSeconds: number,
		options: RecentFaxesOptions,
	) {
		this.#store = store;
		this.#commits = commits;
		this.#json = json;
		this.#outcomeOf = options.outcomeOf ?? (() => null);
		this.#windowSeconds = options.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
		this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
		this.#coveredAfter = nowSeconds - this.#windowSeconds;
		this.#changeCount = commits.count();
	}

	/** Memory filled with the newest faxes, read in one snapshot. */
	static async open(
		store: FaxStore,
		json: (row: FaxRow) => string,
		nowSeconds: number,
		options: RecentFaxesOptions = {},
	): Promise<RecentFaxes> {
		const recent = new RecentFaxes(store, await store.watchCommits(), json, nowSeconds, options);
		await recent.#load();
		return recent;
	}

	async #load(): Promise<void> {
		const store = this.#store;
		const rows = await store.snapshot(async () => {
			this.#lastId = await store.lastFaxId();
			this.#lastRemoval = await store.lastRemoval();
			this.#lastPublication = await store.lastPublication();
			return store.newestFaxes(this.#coveredAfter, this.#maxEntries + 1);
		});
		this.#add(rows);
	}

	/** Number of faxes held, for tests of the bound. */
	get size(): number {
		return this.#entries.length;
	}

	/** Number of list answers remembered since the last commit, for tests of the bound. */
	get rememberedAnswers(): number {
		return this.#answers.size;
	}

	/** Memory holds every live fax received after this time (Unix seconds). */
	get coveredAfter(): number {
		return this.#coveredAfter;
	}

	/** Tells `listener` of every change a refresh applies, whichever request or catchUp found it. */
	watch(listener: (change: FaxChange) => void): void {
		this.#onChange = listener;
	}

	/**
	 * Null when memory may answer a request arriving now; else a promise that
	 * resolves once memory holds every commit the request must see (and
	 * rejects when the database cannot tell or answer).
	 */
	settle(): Promise<void> | null {
		const watching = this.#commits.settle();
		if (watching !== null) return watching.then(() => this.#applied() ?? undefined);
		return this.#applied();
	}

	/** Null when memory holds every commit counted; else the refresh that brings them, shared. */
	#applied(): Promise<void> | null {
		if (this.#refreshing === null && this.#commits.count() === this.#changeCount) return null;
		if (this.#refreshing === null) {
			const refreshing = this.#refreshUntilCurrent().finally(() => {
				if (this.#refreshing === refreshing) this.#refreshing = null;
			});
			this.#refreshing = refreshing;
		}
		return this.#refreshing;
	}

	async #refreshUntilCurrent(): Promise<void> {
		for (let count = this.#commits.count(); count !== this.#changeCount; count = this.#commits.count()) {
			// Taken as seen only once applied: a refresh that failed is tried again by the next request.
			const change = this.#apply(await this.#readChanges());
			this.#changeCount = count;
			this.#forgetAnswers();
			// Told after the count is taken, so a listener that asks for answers finds them current.
			if (change.unattributed || change.senders.size > 0) this.#onChange?.(change);
		}
	}

	/**
	 * Applies what other processes committed since the last request, without
	 * answering one; rejects when the database cannot tell or answer.
	 */
	async catchUp(): Promise<void> {
		await this.settle();
	}

	/** The JSON array the list answers, newest first: at once from memory, awaited from the database. */
	list(query: ListQuery, nowSeconds: number): Representation | Promise<Representation> {
		this.#evict(nowSeconds);
		const { after, sender, limit } = query;
		const key = `${limit}/${after}/${sender.kind === "key" ? `key/${sender.key}` : sender.kind}`;
		const known = this.#answers.get(key);
		if (known !== undefined) return known;
		const entries =
			sender.kind === "any"
				? this.#entries
				: this.#bySender.get(sender.kind === "unknown" ? null : sender.key);
		const remembered = newestJson(entries, after, limit, after >= this.#coveredAfter);
		if (remembered !== null) return this.#remember(key, remembered);
		return this.#fromDatabase(key, query);
	}

	/** A list only the database can answer; the requests asking the same while it is read share the read. */
	#fromDatabase(key: string, query: ListQuery): Promise<Representation> {
		const generation = this.#generation;
		const pending = this.#reading.get(key);
		if (pending !== undefined && pending.generation === generation) return pending.answer;
		const answer = this.#store.list(query).then((rows) => {
			let body = "[";
			for (let i = 0; i < rows.length; i++)
				body += i === 0 ? this.#json(rows[i] as FaxRow) : `,${this.#json(rows[i] as FaxRow)}`;
			body += "]";
			return generation === this.#generation ? this.#remember(key, body) : new Representation(body);
		});
		const entry = { generation, answer };
		this.#reading.set(key, entry);
		const done = () => {
			if (this.#reading.get(key) === entry) this.#reading.delete(key);
		};
		answer.then(done, done);
		return answer;
	}

	#remember(key: string, text: string): Representation {
		const answer = new Representation(text);
		// Counted by its text: its compressed forms, if asked for, add about a tenth.
		const cost = key.length + answer.text.length + ANSWER_OVERHEAD_CHARS;
		if (this.#answerChars + cost > MAX_ANSWER_CHARS) this.#forgetAnswers();
		this.#answers.set(key, answer);
		this.#answerChars += cost;
		return answer;
	}

	/** A fax by slug; `notBefore` is the retention cutoff, older faxes count as removed. */
	lookup(slug: string, notBefore: number, nowSeconds: number): FaxLookup | Promise<FaxLookup> {
		this.#evict(nowSeconds);
		const entry = this.#bySlug.get(slug);
		// A single fax's answer is small: its ETag (a hash of some 300 bytes) is
		// made per request rather than kept beside each of up to 100,000 faxes.
		if (entry !== undefined)
			return entry.receivedAt < notBefore
				? REMOVED
				: { state: "found", answer: new Representation(entry.json) };
		return this.#store.lookup(slug, notBefore).then((found) => {
			// Memory holds every live fax after coveredAfter: one it lacks was committed after its count.
			if (found.state === "found" && found.fax.received_at > this.#coveredAfter) this.#commits.behind();
			return found.state === "found"
				? { state: "found", answer: new Representation(this.#json(found.fax)) }
				: found;
		});
	}

	/**
	 * The outcome's words of a fax held in memory (null when it went well or
	 * has no report), as its page's verdict says them; undefined when the fax
	 * is not held.
	 */
	outcome(slug: string): string | null | undefined {
		return this.#bySlug.get(slug)?.outcome;
	}

	#evict(nowSeconds: number): void {
		const horizon = nowSeconds - this.#windowSeconds;
		if (horizon >= this.#coveredAfter + EVICTION_STEP_SECONDS) this.#dropUpTo(horizon);
	}

	#forgetAnswers(): void {
		this.#answers.clear();
		this.#answerChars = 0;
		this.#generation++;
	}

	/** Reads, in one snapshot, what was committed since the last refresh. */
	#readChanges(): Promise<ReadChanges> {
		const store = this.#store;
		return store.snapshot(async () => {
			const removals = await store.removalsAfter(this.#lastRemoval);
			const imported: ReadChanges["imported"] = [];
			// Rows of a published import with larger ids come with the inserted ones below.
			for (const { seq, importId } of await store.publicationsAfter(this.#lastPublication))
				imported.push({ seq, rows: await store.importedFaxes(importId, this.#coveredAfter, this.#lastId) });
			const inserted = await store.faxesInsertedAfter(this.#lastId);
			return { removals, imported, inserted, lastId: await store.lastFaxId() };
		});
	}

	/** Applies what #readChanges read, all at once. */
	#apply(read: ReadChanges): FaxChange {
		const senders = new Set<string | null>();
		let unattributed = false;
		const last = read.removals[read.removals.length - 1];
		if (last !== undefined) this.#lastRemoval = last.seq;
		const held = this.#remove(
			read.removals.map((removal) => removal.slug),
			senders,
		);
		if (held < read.removals.length) unattributed = true;
		for (const { seq, rows } of read.imported) {
			this.#add(rows, senders);
			this.#lastPublication = seq;
			unattributed = true;
		}
		// Faxes older than memory's window are not held, but their senders are known. Ids passed
		// over (a failed insert on PostgreSQL) and rows hidden until their import is published change no answer.
		this.#add(
			read.inserted.filter((row) => row.received_at > this.#coveredAfter),
			senders,
		);
		for (const row of read.inserted) senders.add(row.sender_key);
		this.#lastId = Math.max(this.#lastId, read.lastId);
		return { senders, unattributed };
	}

	/** Adds rows in any order, then keeps the newest `maxEntries`; notes their senders in `senders`. */
	#add(rows: StoredFax[], senders?: Set<string | null>): void {
		if (rows.length === 0) return;
		const batch = rows.map(
			(row): Entry => ({
				id: row.id,
				receivedAt: row.received_at,
				slug: row.slug,
				senderKey: row.sender_key,
				json: this.#json(row),
				outcome: this.#outcomeOf(row.report),
			}),
		);
		batch.sort((a, b) => (isBefore(a, b) ? -1 : 1));
		const bySender = new Map<string | null, Entry[]>();
		for (const entry of batch) {
			this.#bySlug.set(entry.slug, entry);
			senders?.add(entry.senderKey);
			const own = bySender.get(entry.senderKey);
			if (own === undefined) bySender.set(entry.senderKey, [entry]);
			else own.push(entry);
		}
		this.#entries = mergeEntries(this.#entries, batch);
		for (const [key, own] of bySender)
			this.#bySender.set(key, mergeEntries(this.#bySender.get(key) ?? [], own));
		const excess = this.#entries.length - this.#maxEntries;
		if (excess > 0) this.#dropUpTo((this.#entries[excess - 1] as Entry).receivedAt);
	}

	/** Removes the faxes held of `slugs`, notes their senders in `senders`; returns how many were held. */
	#remove(slugs: string[], senders: Set<string | null>): number {
		const gone = new Set<Entry>();
		for (const slug of slugs) {
			const entry = this.#bySlug.get(slug);
			if (entry === undefined) continue;
			this.#bySlug.delete(slug);
			gone.add(entry);
			senders.add(entry.senderKey);
		}
		if (gone.size === 0) return 0;
		this.#entries = this.#entries.filter((entry) => !gone.has(entry));
		for (const key of new Set([...gone].map((entry) => entry.senderKey))) {
			const kept = (this.#bySender.get(key) ?? []).filter((entry) => !gone.has(entry));
			if (kept.length === 0) this.#bySender.delete(key);
			else this.#bySender.set(key, kept);
		}
		return gone.size;
	}

	/** Drops every fax received at or before `time`; memory then covers what came after it. */
	#dropUpTo(time: number): void {
		const count = firstAfter(this.#entries, time);
		const dropped = this.#entries.splice(0, count);
		const perSender = new Map<string | null, number>();
		for (const entry of dropped) {
			this.#bySlug.delete(entry.slug);
			perSender.set(entry.senderKey, (perSender.get(entry.senderKey) ?? 0) + 1);
		}
		for (const [key, n] of perSender) {
			const own = this.#bySender.get(key);
			if (own === undefined || own.length === n) this.#bySender.delete(key);
			else own.splice(0, n);
		}
		this.#coveredAfter = Math.max(this.#coveredAfter, time);
	}
}
