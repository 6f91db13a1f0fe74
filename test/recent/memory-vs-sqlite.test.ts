import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { FaxStore, type ListQuery, openDatabase, type SenderFilter } from "../../lib/db/index.ts";
import {
	createFaxJson,
	createFaxPresenter,
	type FaxRow,
	retentionCutoff,
	senderMatchKey,
} from "../../lib/fax/index.ts";
import { type FaxLookup, RecentFaxes } from "../../lib/recent/index.ts";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";
import { makeTempDir } from "../../testkit/server.ts";

const DAY = 86_400;
const SENDERS = ["+1 555 123 4567", "15551234567", "ACME 42", "acme42", "x@y.example", null, "  "];
const QUERY_SENDERS: SenderFilter[] = [
	{ kind: "any" },
	{ kind: "unknown" },
	...["+15551234567", "ACME 42", "x@y.example", "nobody"].map((from) => ({
		kind: "key" as const,
		key: senderMatchKey(from),
	})),
];

const json = createFaxJson(
	createFaxPresenter({ cdnBaseUrl: "https://cdn.example", siteBaseUrl: "https://site.example" }),
);

/** The answers as SQLite alone gives them: the path every answer took before memory. */
async function sqliteList(store: FaxStore, query: ListQuery): Promise<string> {
	return `[${(await store.list(query)).map(json).join(",")}]`;
}

/** A lookup with its answer's text, as sqliteLookup gives it. */
function asJson(found: FaxLookup) {
	return found.state === "found" ? { state: "found" as const, json: found.answer.text } : found;
}

async function sqliteLookup(store: FaxStore, slug: string, notBefore: number) {
	const found = await store.lookup(slug, notBefore);
	return found.state === "found" ? { state: "found" as const, json: json(found.fax) } : found;
}

// Received times bunch on a few instants, so ties in received_at are common.
const offset = fc.oneof(
	fc.integer({ min: -31 * DAY, max: 120 }),
	fc.constantFrom(0, -1, -60, -3600, -DAY, -DAY - 1, -25 * 3600, -30 * DAY, -30 * DAY - 1),
);
const via = fc.constantFrom("own", "other");
const operation = fc.oneof(
	fc.record({
		kind: fc.constant("insert" as const),
		via,
		faxes: fc.array(fc.record({ offset, sender: fc.constantFrom(...SENDERS), processed: fc.boolean() }), {
			minLength: 1,
			maxLength: 6,
		}),
	}),
	// A large import, published (all its faxes show at once) or still loading (none shows).
	fc.record({
		kind: fc.constant("import" as const),
		via,
		faxes: fc.array(fc.record({ offset, sender: fc.constantFrom(...SENDERS), processed: fc.boolean() }), {
			minLength: 1,
			maxLength: 6,
		}),
		publish: fc.boolean(),
	}),
	fc.record({ kind: fc.constant("remove" as const), via, pick: fc.nat() }),
	fc.record({ kind: fc.constant("tombstone" as const), via }),
	fc.record({ kind: fc.constant("purge" as const), via }),
	fc.record({ kind: fc.constant("advance" as const), seconds: fc.integer({ min: 0, max: 3 * 3600 }) }),
);
const query = fc.record({
	back: fc.oneof(
		fc.integer({ min: -120, max: 31 * DAY }),
		fc.constantFrom(0, 60, 3600, DAY, 25 * 3600, 30 * DAY),
	),
	sender: fc.constantFrom(...QUERY_SENDERS),
	limit: fc.oneof(fc.constantFrom(1, 2, 3, 20, 100), fc.integer({ min: 1, max: 100 })),
});
const settings = fc.record({
	windowSeconds: fc.constantFrom(3600, 25 * 3600, 40 * DAY),
	maxEntries: fc.constantFrom(2, 5, 100_000),
});

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Settings = typeof settings extends fc.Arbitrary<infer T> ? T : never;
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;
type Query = typeof query extends fc.Arbitrary<infer T> ? T : never;
type NewFax = { offset: number; sender: string | null; processed: boolean };

/** One run of the property: the store both writers share, its memory, and the clock and slugs so far. */
interface Run {
	store: FaxStore;
	writers: Record<"own" | "other", FaxStore>;
	recent: RecentFaxes;
	queries: Query[];
	now: number;
	next: number;
	slugs: string[];
}

/** Every query's list and every slug's lookup (and one never stored) from memory, against SQLite's. */
async function check(run: Run): Promise<void> {
	const { recent, store, now } = run;
	const cutoff = retentionCutoff(now);
	await recent.settle();
	for (const { back, sender, limit } of run.queries) {
		const list: ListQuery = { after: Math.max(now - back, cutoff - 1), sender, limit };
		expect((await recent.list(list, now)).text).toBe(await sqliteList(store, list));
	}
	for (const slug of [...run.slugs, "fax_never"]) {
		expect(asJson(await recent.lookup(slug, cutoff, now))).toEqual(await sqliteLookup(store, slug, cutoff));
	}
}

function toRow(run: Run, fax: NewFax): FaxRow {
	const row: FaxRow = {
		slug: `fax_p${run.next++}`,
		source: "phone",
		sender: fax.sender,
		received_at: run.now + fax.offset,
		page_count: fax.processed ? 2 : null,
		file_size: fax.processed ? 2000 : null,
	};
	run.slugs.push(row.slug);
	return row;
}

async function apply(run: Run, op: Operation): Promise<void> {
	if (op.kind === "advance") run.now += op.seconds;
	else if (op.kind === "insert") {
		const rows = op.faxes.map((fax) => toRow(run, fax));
		await run.writers[op.via].write(async (writer) => {
			for (const row of rows) await writer.insert(row);
		});
	} else if (op.kind === "import") {
		const staged = await run.writers[op.via].beginImport();
		await staged.load(
			op.faxes.map((fax) => toRow(run, fax)),
			[],
			run.now,
			() => {},
		);
		if (op.publish) {
			// Answers while the rows are hidden pass over their ids.
			await check(run);
			await staged.publish();
		}
	} else if (op.kind === "remove") {
		const slug = run.slugs[op.pick % Math.max(1, run.slugs.length)];
		if (slug !== undefined) await run.writers[op.via].remove(slug, run.now);
	} else if (op.kind === "tombstone") {
		const slug = `fax_p${run.next++}`;
		await run.writers[op.via].write((writer) => writer.tombstone(slug, run.now));
		run.slugs.push(slug);
	} else await run.writers[op.via].purgeBefore(retentionCutoff(run.now), run.now);
}

/** The operations on a fresh database, written through this process's store or another's, checked after each. */
async function memoryAgainstSqlite(
	options: Settings,
	operations: Operation[],
	queries: Query[],
): Promise<void> {
	const dir = makeTempDir();
	dirs.push(dir);
	const path = join(dir, "faxes.sqlite");
	const db = openDatabase(path);
	const other = openDatabase(path);
	const store = new FaxStore(db);
	const writers = { own: store, other: new FaxStore(other) };
	try {
		const recent = await RecentFaxes.open(store, json, NOW_SECONDS, options);
		const run: Run = { store, writers, recent, queries, now: NOW_SECONDS, next: 0, slugs: [] };
		await check(run);
		for (const op of operations) {
			await apply(run, op);
			await check(run);
		}
	} finally {
		other.close();
		db.close();
	}
}

test("every list and lookup from memory is byte for byte the SQLite answer, whoever writes", async () => {
	await fc.assert(
		fc.asyncProperty(
			settings,
			fc.array(operation, { minLength: 1, maxLength: 25 }),
			fc.array(query, { minLength: 4, maxLength: 8 }),
			memoryAgainstSqlite,
		),
		{ numRuns: 150 },
	);
});
