import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fax = (slug: string, receivedAt: number) => ({
	slug,
	source: "phone" as const,
	sender: null,
	received_at: receivedAt,
	page_count: null,
	file_size: null,
});

test("a report is kept with its fax, in the same write, and goes with the row: removal and purge", async () => {
	const db = openDatabase(join(dir, "reports.sqlite"));
	const store = new FaxStore(db);
	await store.insert(fax("fax_kept", 1000), { report: '{"a":1}' });
	expect(await store.insertReceived(fax("fax_recv", 1000), "key-1", { report: '{"b":2}' })).toBe("fax_recv");
	// The key was handed over before: neither the row nor its report is written again.
	expect(await store.insertReceived(fax("fax_again", 1000), "key-1", { report: '{"c":3}' })).toBe("fax_recv");
	await store.insert(fax("fax_old", 10), { report: '{"d":4}' });
	await store.insert(fax("fax_bare", 1000));
	expect(
		await Promise.all(
			["fax_kept", "fax_recv", "fax_again", "fax_old", "fax_bare"].map((slug) => store.report(slug)),
		),
	).toEqual(['{"a":1}', '{"b":2}', null, '{"d":4}', null]);
	await store.remove("fax_kept", 2000);
	await store.purgeBefore(100, 2000);
	expect(
		await Promise.all([store.report("fax_kept"), store.report("fax_old"), store.report("fax_recv")]),
	).toEqual([null, null, '{"b":2}']);
	expect(db.query("SELECT count(*) AS n FROM fax_reports").get()).toEqual({ n: 1 });
	db.close();
});

test("a database of version 4 gains the table and its trigger; its faxes have no report", async () => {
	const path = join(dir, "v4.sqlite");
	const created = openDatabase(path);
	await new FaxStore(created).insert(fax("fax_v4", 1000));
	created.exec("DROP TRIGGER fax_reports_follow_row; DROP TABLE fax_reports; PRAGMA user_version = 4");
	created.close();
	const old = new Database(path);
	expect(old.query("SELECT name FROM sqlite_master WHERE name LIKE 'fax_reports%'").all()).toEqual([]);
	old.close();
	const db = openDatabase(path);
	expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 8 });
	expect(
		db.query("SELECT type, name FROM sqlite_master WHERE name LIKE 'fax_reports%' ORDER BY name").all(),
	).toEqual([
		{ type: "table", name: "fax_reports" },
		{ type: "trigger", name: "fax_reports_follow_row" },
	]);
	expect(await new FaxStore(db).report("fax_v4")).toBeNull();
	db.close();
});
