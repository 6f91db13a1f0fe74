/**
 * Another process writing while the server answers: inserts COUNT faxes one
 * commit at a time through its own SQLite connection, `fax_w<i>` received at
 * BASE + i, and prints i after each commit.
 */
import { FaxStore, openDatabase } from "../../lib/db/index.ts";

const db = openDatabase(process.env.DATABASE_PATH ?? "");
const store = new FaxStore(db);
const count = Number(process.env.COUNT);
const base = Number(process.env.BASE);
for (let i = 0; i < count; i++) {
	await store.insert({
		slug: `fax_w${i}`,
		source: "phone",
		sender: `WRITER ${i % 3}`,
		received_at: base + i,
		page_count: 1,
		file_size: 100,
	});
	process.stdout.write(`${i}\n`);
	await Bun.sleep(1);
}
db.close();
