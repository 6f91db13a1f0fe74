import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyDatabase, databaseDigest, FaxStore, openDatabase } from "../../lib/db/index.ts";
import { PostgresDatabase } from "../../lib/db/postgres/sync-client.ts";
import { COPIED_TABLES } from "../../lib/db/schema.ts";
import { sqliteEngine } from "../../lib/db/sqlite-engine.ts";
import type { FaxRow } from "../../lib/fax/index.ts";
import { ENGINES, useStoreEngines } from "../../testkit/store-engines.ts";

// The same store tests on bun:sqlite and on PostgreSQL (DATABASE_URL): every
// answer the API builds on is asserted to be the same value on both.
const engines = useStoreEngines();

const fax = (slug: string, receivedAt: number, sender: string | null = null): FaxRow => ({
	slug,
	source: sender?.includes("@") ? "email" : "phone",
	sender,
	received_at: receivedAt,
	page_count: 2,
	file_size: 1234,
});

const files = (seed: number) => ({
	pdf: new Uint8Array(300_000).map((_, i) => (i * seed) % 251),
	thumbnail: new Uint8Array([seed, 0, 255, seed]),
});

describe.each(ENGINES)("on %s", (engine) => {
	const open = async () => new FaxStore(await engines.open(await engines.fresh(engine)));

	test("list, lookup, removal, purge, reports and files answer alike", async () => {
		const store = await open();
		await store.insert(fax("fax_b", 2000, "+1 555 0100"), { files: files(3), report: '{"r":1}' });
		await store.insert(fax("fax_a", 2000, "Ann <ann@example.com>"));
		await store.insert(fax("fax_old", 10));
		expect(store.list({ after: 1000, sender: { kind: "any" }, limit: 10 }).map((row) => row.slug)).toEqual([
			"fax_a",
			"fax_b",
		]);
		expect(store.list({ after: 0, sender: { kind: "unknown" }, limit: 10 })).toEqual([fax("fax_old", 10)]);
		expect(store.lookup("fax_b", 0)).toEqual({ state: "found", fax: fax("fax_b", 2000, "+1 555 0100") });
		expect(store.lookup("fax_old", 100)).toEqual({ state: "removed" });
		expect(store.lookup("fax_none", 0)).toEqual({ state: "missing" });
		expect(store.report("fax_b")).toBe('{"r":1}');
		expect([...store.archivedFiles()]).toEqual([{ slug: "fax_b", ...files(3) }]);
		expect(store.unarchivedSlugs("", 10)).toEqual(["fax_a", "fax_old"]);
		expect(await store.remove("fax_b", 3000)).toBe(true);
		expect(await store.remove("fax_b", 3000)).toBe(false);
		expect(await store.purgeBefore(100, 3000)).toEqual(["fax_old"]);
		expect([store.lookup("fax_b", 0), store.lookup("fax_old", 0)]).toEqual([
			{ state: "removed" },
			{ state: "removed" },
		]);
		expect([store.report("fax_b"), [...store.archivedFiles()], store.slugTaken("fax_old")]).toEqual([
			null,
			[],
			true,
		]);
		expect(store.removalsAfter(0)).toEqual([
			{ seq: 1, slug: "fax_b" },
			{ seq: 2, slug: "fax_old" },
		]);
		expect([store.lastFaxId(), store.lastRemoval(), store.isEmpty()]).toEqual([2, 2, false]);
		store.close();
	});

	test("a receiver's two hand-overs of one key from two connections list one fax", async () => {
		const database = await engines.fresh(engine);
		const [first, second] = [
			new FaxStore(await engines.open(database)),
			new FaxStore(await engines.open(database)),
		];
		const slugs = await Promise.all([
			first.insertReceived(fax("fax_one", 2000), "msg-1"),
			second.insertReceived(fax("fax_two", 2000), "msg-1"),
		]);
		expect(slugs[0]).toBe(slugs[1]);
		expect(first.list({ after: 0, sender: { kind: "any" }, limit: 10 }).map((row) => row.slug)).toEqual([
			slugs[0],
		]);
		expect(second.receiptSlug("msg-1")).toBe(slugs[0]);
		first.close();
		second.close();
	});

	test("another connection's commit changes the count; a read does not", async () => {
		const database = await engines.fresh(engine);
		const [reader, writer] = [
			new FaxStore(await engines.open(database)),
			new FaxStore(await engines.open(database)),
		];
		const before = reader.changeCount();
		reader.list({ after: 0, sender: { kind: "any" }, limit: 10 });
		expect(reader.changeCount()).toBe(before);
		await writer.insert(fax("fax_new", 2000));
		const after = reader.changeCount();
		expect(after).not.toBe(before);
		expect(reader.faxesInsertedAfter(0).map((row) => row.slug)).toEqual(["fax_new"]);
		expect(reader.changeCount()).toBe(after);
		reader.close();
		writer.close();
	});

	test("a large import stays hidden until published, and an abandoned one leaves nothing", async () => {
		const store = await open();
		const shown = await store.beginImport();
		await shown.load([fax("fax_i1", 2000), fax("fax_i2", 2001)], ["fax_gone"], 1500, () => {});
		expect(store.list({ after: 0, sender: { kind: "any" }, limit: 10 })).toEqual([]);
		expect([store.hasRow("fax_i1"), store.lookup("fax_gone", 0)]).toEqual([true, { state: "missing" }]);
		await shown.publish();
		expect(store.list({ after: 0, sender: { kind: "any" }, limit: 10 }).map((row) => row.slug)).toEqual([
			"fax_i2",
			"fax_i1",
		]);
		expect([store.lookup("fax_gone", 0), store.lastPublication()]).toEqual([{ state: "removed" }, 1]);
		const dropped = await store.beginImport();
		await dropped.load([fax("fax_x", 2000)], [], 1500, () => {});
		await dropped.abandon();
		expect([store.hasRow("fax_x"), store.slugTaken("fax_x")]).toEqual([false, false]);
		store.close();
	});
});

test("an answer that comes after its caller gave up is not taken for the next statement's", async () => {
	const database = await engines.fresh("postgres");
	const db = new PostgresDatabase(database.databaseUrl ?? "", { answerTimeoutMs: 200 });
	expect(() => db.run("SELECT pg_sleep(1), 1 AS late")).toThrow("PostgreSQL did not answer in 0.2 s");
	// The late answer arrives meanwhile.
	await Bun.sleep(1500);
	expect(db.run("SELECT 2 AS next").rows).toEqual([{ next: 2 }]);
	db.close();
});

test("PostgreSQL's tables have SQLite's columns, in the same order", async () => {
	const sqlite = openDatabase(":memory:");
	const database = await engines.fresh("postgres");
	const postgres = new PostgresDatabase(database.databaseUrl ?? "");
	(await engines.open(database)).close();
	for (const { table } of COPIED_TABLES) {
		const columns = sqlite
			.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
			.all();
		const mirrored = postgres.run(
			"SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
			[table],
		).rows;
		expect(mirrored).toEqual(columns);
	}
	postgres.close();
	sqlite.close();
});

test("a SQLite database copied to PostgreSQL and back holds the same rows and bytes", async () => {
	const original = await engines.fresh("sqlite");
	const store = new FaxStore(await engines.open(original));
	for (let i = 0; i < 450; i++)
		await store.insert(
			fax(`fax_${i}`, 2000 + i, `+1 555 ${i}`),
			i % 50 === 0 ? { files: files(i), report: `{"i":${i}}` } : {},
		);
	await store.insertReceived(fax("fax_r", 1000), "queue/q7");
	await store.remove("fax_3", 5000);
	const load = await store.beginImport();
	await load.load([fax("fax_imported", 900)], ["fax_tomb"], 800, () => {});
	await load.publish();
	store.close();
	const source = await engines.open(original);
	const target = await engines.open(await engines.fresh("postgres"));
	copyDatabase(source, target);
	const digest = databaseDigest(source);
	expect(digest.faxes?.rows).toBe(451);
	expect(databaseDigest(target)).toEqual(digest);
	const back = `${original.databasePath}.back`;
	new FaxStore(target).copyTo(back);
	const restored = sqliteEngine(new Database(back));
	expect(databaseDigest(restored)).toEqual(digest);
	// New ids follow the copied ones: an id is never handed out twice.
	const moved = new FaxStore(target);
	await moved.insert(fax("fax_after", 9000));
	expect(moved.faxesInsertedAfter(452).map((row) => [row.id, row.slug])).toEqual([[453, "fax_after"]]);
	for (const engine of [source, restored]) engine.close();
	moved.close();
});
