import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";

// FaxStore.changeCount reads the WAL index header in the -shm file instead of
// running PRAGMA data_version per request; these tests hold it to what
// data_version says, commit by commit.

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileStore(): { store: FaxStore; path: string; db: Database } {
	const dir = makeTempDir();
	dirs.push(dir);
	const path = join(dir, "faxes.sqlite");
	const db = openDatabase(path);
	return { store: new FaxStore(db), path, db };
}

const fax = (slug: string) => ({
	slug,
	source: "phone" as const,
	sender: "+1 555 123 4567",
	received_at: 1_000_000 + slug.length,
	page_count: 1,
	file_size: 10,
});

test("a file database is watched through its WAL index, an in-memory one through data_version", () => {
	const { store, db } = fileStore();
	expect(store.commitSource).toBe("wal-index");
	db.close();
	const memory = openDatabase(":memory:");
	expect(new FaxStore(memory).commitSource).toBe("data_version");
	memory.close();
});

test("a commit by another process changes the count; reads and idle time do not", async () => {
	const { store, path, db } = fileStore();
	const before = await store.changeCount();
	expect(await store.newestFaxes(0, 10)).toEqual([]);
	expect(await store.changeCount()).toBe(before);

	const script = `
		import { FaxStore, openDatabase } from "./lib/db/index.ts";
		const db = openDatabase(${JSON.stringify(path)});
		await new FaxStore(db).insert(${JSON.stringify(fax("fax_other1"))});
		db.close();`;
	const result = await runCommand([process.execPath, "-e", script], {
		cwd: join(import.meta.dir, "../.."),
		env: {},
	});
	expect(result).toEqual({ code: 0, stdout: "", stderr: "" });

	const after = await store.changeCount();
	expect(after).not.toBe(before);
	expect(await store.changeCount()).toBe(after);
	expect((await store.newestFaxes(0, 10)).map((row) => row.slug)).toEqual(["fax_other1"]);
	db.close();
});

test("property: the count changes exactly when data_version does, across rollbacks and WAL resets", async () => {
	const { store, path, db } = fileStore();
	const other = new Database(path);
	const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
	let n = 0;
	const step = fc.constantFrom("commit", "rollback", "read", "checkpoint", "reset");
	await fc.assert(
		fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
			for (const action of steps) {
				const [count, version] = [await store.changeCount(), dataVersion.get()?.data_version];
				if (action === "commit") {
					n++;
					other.run("INSERT INTO removed_faxes (slug, removed_at) VALUES (?, ?)", [`fax_p${n}`, n]);
				} else if (action === "rollback") {
					other.run("BEGIN IMMEDIATE");
					other.run("INSERT INTO removed_faxes (slug, removed_at) VALUES ('fax_never', 1)");
					other.run("ROLLBACK");
				} else if (action === "read") {
					other.query("SELECT count(*) FROM faxes").get();
				} else {
					other.run(`PRAGMA wal_checkpoint(${action === "reset" ? "TRUNCATE" : "PASSIVE"})`);
				}
				// data_version moves on a WAL reset too (the WAL changed): a needless refresh, never a missed commit.
				const changed = dataVersion.get()?.data_version !== version;
				if (action === "commit") expect(changed).toBe(true);
				expect((await store.changeCount()) !== count).toBe(changed);
			}
		}),
		{ numRuns: 60 },
	);
	other.close();
	db.close();
});

test("a database made anew at the same path is watched anew", async () => {
	const first = fileStore();
	first.db.close();
	for (const suffix of ["", "-wal", "-shm"]) rmSync(`${first.path}${suffix}`, { force: true });
	const db = openDatabase(first.path);
	const store = new FaxStore(db);
	expect(store.commitSource).toBe("wal-index");
	const other = new Database(first.path);
	const before = await store.changeCount();
	other.run("INSERT INTO removed_faxes (slug, removed_at) VALUES ('fax_anew', 1)");
	expect(await store.changeCount()).not.toBe(before);
	other.close();
	db.close();
});
