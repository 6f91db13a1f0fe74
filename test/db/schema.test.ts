import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

// The schema as files were written before the schema version was kept.
const VERSION_0 = `
CREATE TABLE faxes (
	id INTEGER PRIMARY KEY,
	slug TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL CHECK (source IN ('phone', 'email')),
	sender TEXT,
	sender_key TEXT,
	received_at INTEGER NOT NULL,
	page_count INTEGER,
	file_size INTEGER
);
CREATE INDEX faxes_by_time ON faxes (received_at, id);
CREATE INDEX faxes_by_sender ON faxes (sender_key, received_at, id);
CREATE TABLE removed_faxes (
	slug TEXT PRIMARY KEY,
	removed_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO faxes VALUES (3, 'fax_a', 'phone', '+1 555 123 4567', '15551234567', 1000, 1, 10);
INSERT INTO faxes VALUES (7, 'fax_b', 'email', NULL, NULL, 2000, NULL, NULL);
INSERT INTO removed_faxes VALUES ('fax_gone2', 900), ('fax_gone1', 800);
`;

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempPath(): string {
	const dir = makeTempDir();
	dirs.push(dir);
	return join(dir, "faxes.sqlite");
}

const fax = (slug: string, receivedAt: number) => ({
	slug,
	source: "phone" as const,
	sender: null,
	received_at: receivedAt,
	page_count: null,
	file_size: null,
});

test("a file of the first schema is rebuilt with its rows, ids and tombstones kept", async () => {
	const path = tempPath();
	const old = new Database(path, { create: true });
	old.exec(VERSION_0);
	old.close();

	const db = openDatabase(path);
	const store = new FaxStore(db);
	expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 8 });
	expect(db.query("SELECT * FROM faxes ORDER BY id").all()).toEqual([
		{
			id: 3,
			slug: "fax_a",
			source: "phone",
			sender: "+1 555 123 4567",
			sender_key: "15551234567",
			received_at: 1000,
			page_count: 1,
			file_size: 10,
			import_id: null,
		},
		{
			id: 7,
			slug: "fax_b",
			source: "email",
			sender: null,
			sender_key: null,
			received_at: 2000,
			page_count: null,
			file_size: null,
			import_id: null,
		},
	]);
	expect(await store.removalsAfter(0)).toEqual([
		{ seq: 1, slug: "fax_gone1" },
		{ seq: 2, slug: "fax_gone2" },
	]);
	expect(await store.lookup("fax_gone1", 0)).toEqual({ state: "removed" });
	expect(
		db
			.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'faxes_by_%' ORDER BY name")
			.all(),
	).toEqual([{ name: "faxes_by_sender" }, { name: "faxes_by_time" }]);
	db.close();
	// Opening it again changes nothing.
	const again = openDatabase(path);
	expect(await new FaxStore(again).lastFaxId()).toBe(7);
	again.close();
});

test("ids and removal numbers are never handed out twice, also after the newest row went", async () => {
	const db = openDatabase(tempPath());
	const store = new FaxStore(db);
	await store.insert(fax("fax_one", 100));
	await store.insert(fax("fax_two", 100));
	expect(await store.lastFaxId()).toBe(2);
	await store.remove("fax_two", 200);
	expect(await store.lastFaxId()).toBe(1);
	await store.insert(fax("fax_three", 100));
	expect((await store.faxesInsertedAfter(1)).map((row) => [row.id, row.slug])).toEqual([[3, "fax_three"]]);
	// A repeated tombstone is ignored; the number it drew stays unused.
	await store.write((writer) => writer.tombstone("fax_two", 300));
	await store.remove("fax_three", 300);
	expect(await store.removalsAfter(0)).toEqual([
		{ seq: 1, slug: "fax_two" },
		{ seq: 3, slug: "fax_three" },
	]);
	expect(await store.lastRemoval()).toBe(3);
	db.close();
});

test("a file of a newer schema is refused, not changed", () => {
	const path = tempPath();
	const newer = new Database(path, { create: true });
	newer.exec("PRAGMA user_version = 99");
	newer.close();
	expect(() => openDatabase(path)).toThrow("the database has schema version 99; this program knows up to 8");
});
