import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { copyDatabase, databaseDigest, FaxStore, openDatabase } from "../../lib/db/index.ts";
import { PostgresDatabase, PostgresError } from "../../lib/db/postgres/client.ts";
import { isPassingPostgresFailure } from "../../lib/db/postgres/errors.ts";
import { COPIED_TABLES } from "../../lib/db/schema.ts";
import { sqliteEngine } from "../../lib/db/sqlite-engine.ts";
import type { FaxRow } from "../../lib/fax/index.ts";
import { startPostgres } from "../../testkit/postgres.ts";
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
		expect(
			(await store.list({ after: 1000, sender: { kind: "any" }, limit: 10 })).map((row) => row.slug),
		).toEqual(["fax_a", "fax_b"]);
		expect(await store.list({ after: 0, sender: { kind: "unknown" }, limit: 10 })).toEqual([
			fax("fax_old", 10),
		]);
		expect(await store.lookup("fax_b", 0)).toEqual({
			state: "found",
			fax: fax("fax_b", 2000, "+1 555 0100"),
		});
		expect(await store.lookup("fax_old", 100)).toEqual({ state: "removed" });
		expect(await store.lookup("fax_none", 0)).toEqual({ state: "missing" });
		expect(await store.report("fax_b")).toBe('{"r":1}');
		expect(await Array.fromAsync(store.archivedFiles())).toEqual([{ slug: "fax_b", ...files(3) }]);
		expect(await store.unarchivedSlugs("", 10)).toEqual(["fax_a", "fax_old"]);
		expect(await store.remove("fax_b", 3000)).toBe(true);
		expect(await store.remove("fax_b", 3000)).toBe(false);
		expect(await store.purgeBefore(100, 3000)).toEqual(["fax_old"]);
		expect(await Promise.all([store.lookup("fax_b", 0), store.lookup("fax_old", 0)])).toEqual([
			{ state: "removed" },
			{ state: "removed" },
		]);
		expect(
			await Promise.all([
				store.report("fax_b"),
				Array.fromAsync(store.archivedFiles()),
				store.slugTaken("fax_old"),
			]),
		).toEqual([null, [], true]);
		expect(await store.removalsAfter(0)).toEqual([
			{ seq: 1, slug: "fax_b" },
			{ seq: 2, slug: "fax_old" },
		]);
		expect(await Promise.all([store.lastFaxId(), store.lastRemoval(), store.isEmpty()])).toEqual([
			2,
			2,
			false,
		]);
		await store.close();
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
		expect(
			(await first.list({ after: 0, sender: { kind: "any" }, limit: 10 })).map((row) => row.slug),
		).toEqual([slugs[0]]);
		expect(await second.receiptSlug("msg-1")).toBe(slugs[0]);
		await first.close();
		await second.close();
	});

	test("another connection's commit changes the count; a read does not", async () => {
		const database = await engines.fresh(engine);
		const [reader, writer] = [
			new FaxStore(await engines.open(database)),
			new FaxStore(await engines.open(database)),
		];
		const before = await reader.changeCount();
		await reader.list({ after: 0, sender: { kind: "any" }, limit: 10 });
		expect(await reader.changeCount()).toBe(before);
		await writer.insert(fax("fax_new", 2000));
		const after = await reader.changeCount();
		expect(after).not.toBe(before);
		expect((await reader.faxesInsertedAfter(0)).map((row) => row.slug)).toEqual(["fax_new"]);
		expect(await reader.changeCount()).toBe(after);
		await reader.close();
		await writer.close();
	});

	test("a large import stays hidden until published, and an abandoned one leaves nothing", async () => {
		const store = await open();
		const shown = await store.beginImport();
		await shown.load([fax("fax_i1", 2000), fax("fax_i2", 2001)], ["fax_gone"], 1500, () => {});
		expect(await store.list({ after: 0, sender: { kind: "any" }, limit: 10 })).toEqual([]);
		expect(await Promise.all([store.hasRow("fax_i1"), store.lookup("fax_gone", 0)])).toEqual([
			true,
			{ state: "missing" },
		]);
		await shown.publish();
		expect(
			(await store.list({ after: 0, sender: { kind: "any" }, limit: 10 })).map((row) => row.slug),
		).toEqual(["fax_i2", "fax_i1"]);
		expect(await Promise.all([store.lookup("fax_gone", 0), store.lastPublication()])).toEqual([
			{ state: "removed" },
			1,
		]);
		const dropped = await store.beginImport();
		await dropped.load([fax("fax_x", 2000)], [], 1500, () => {});
		await dropped.abandon();
		expect(await Promise.all([store.hasRow("fax_x"), store.slugTaken("fax_x")])).toEqual([false, false]);
		await store.close();
	});
});

test("a statement given up on is cancelled, and its connection's next statement gets its own answer", async () => {
	const database = await engines.fresh("postgres");
	// One connection: the next statement goes where the given-up one went.
	const db = new PostgresDatabase(database.databaseUrl ?? "", { poolSize: 1 });
	// Awaited, the statement leaves the event loop free while PostgreSQL works on it.
	let ticks = 0;
	const ticking = setInterval(() => ticks++, 10);
	const started = performance.now();
	const late = await db.run("SELECT pg_sleep(1), 1 AS late", [], { cancelAfterMs: 200 }).then(
		() => null,
		(error: unknown) => error,
	);
	const waitedMs = performance.now() - started;
	clearInterval(ticking);
	expect(late).toBeInstanceOf(PostgresError);
	expect([(late as PostgresError).code, isPassingPostgresFailure(late)]).toEqual(["57014", false]);
	expect(waitedMs).toBeLessThan(900);
	expect(ticks).toBeGreaterThan(5);
	// A statement that ends before its limit answers, not cancelled.
	expect(await db.run("SELECT 1 AS quick", [], { cancelAfterMs: 1000 })).toEqual({
		rows: [{ quick: 1 }],
		changes: 1,
		cancelled: false,
	});
	// The given-up statement's time passes meanwhile.
	await Bun.sleep(1500);
	expect((await db.run("SELECT 2 AS next")).rows).toEqual([{ next: 2 }]);
	await db.close();
});

test("a database that stops answering fails a statement as a passing failure, and answers again once back", async () => {
	const server = await startPostgres();
	try {
		const db = new PostgresDatabase(await server.createDatabase(), { poolSize: 1 });
		expect((await db.run("SELECT 1 AS before")).rows).toEqual([{ before: 1 }]);
		await server.halt();
		const failure = await db.run("SELECT 2 AS meanwhile").then(
			() => null,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(PostgresError);
		expect(isPassingPostgresFailure(failure)).toBe(true);
		await server.resume();
		expect((await db.run("SELECT 3 AS after")).rows).toEqual([{ after: 3 }]);
		await db.close();
	} finally {
		await server.stop();
	}
}, 60_000);

test("PostgreSQL's tables have SQLite's columns, in the same order", async () => {
	const sqlite = openDatabase(":memory:");
	const database = await engines.fresh("postgres");
	const postgres = new PostgresDatabase(database.databaseUrl ?? "");
	await (await engines.open(database)).close();
	for (const { table } of COPIED_TABLES) {
		const columns = sqlite
			.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
			.all();
		const mirrored = (
			await postgres.run(
				"SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
				[table],
			)
		).rows;
		expect(mirrored).toEqual(columns);
	}
	await postgres.close();
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
	await store.close();
	const source = await engines.open(original);
	const target = await engines.open(await engines.fresh("postgres"));
	await copyDatabase(source, target);
	const digest = await databaseDigest(source);
	expect(digest.faxes?.rows).toBe(451);
	expect(await databaseDigest(target)).toEqual(digest);
	const back = `${original.databasePath}.back`;
	await new FaxStore(target).copyTo(back);
	const restored = sqliteEngine(new Database(back));
	expect(await databaseDigest(restored)).toEqual(digest);
	// New ids follow the copied ones: an id is never handed out twice.
	const moved = new FaxStore(target);
	await moved.insert(fax("fax_after", 9000));
	expect((await moved.faxesInsertedAfter(452)).map((row) => [row.id, row.slug])).toEqual([
		[453, "fax_after"],
	]);
	for (const engine of [source, restored]) await engine.close();
	await moved.close();
});
