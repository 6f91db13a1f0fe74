import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { LIST_SQL, openDatabase } from "../../lib/db/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

const dir = makeTempDir();
const db = openDatabase(join(dir, "plan.sqlite"));
afterAll(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

test("the database is in WAL mode", () => {
	expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
});

test.each(Object.entries(LIST_SQL))("the %s list query is served by an index, no scan, no sort", (_, sql) => {
	const plan = db
		.query(`EXPLAIN QUERY PLAN ${sql}`)
		.all({ after: 0, limit: 20, key: "x" })
		.map((row) => (row as { detail: string }).detail);
	expect(plan[0]).toMatch(/^SEARCH faxes USING INDEX faxes_by_(time|sender) \(/);
	// Visibility of imported rows: one primary-key lookup of their import, no scan.
	expect(plan.slice(1)).toEqual([
		"CORRELATED SCALAR SUBQUERY 1",
		"SEARCH fax_imports USING INTEGER PRIMARY KEY (rowid=?)",
	]);
	expect(plan.join("\n")).not.toContain("TEMP B-TREE");
});
