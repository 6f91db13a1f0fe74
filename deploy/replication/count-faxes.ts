// `bun count-faxes.ts DATABASE`: how many faxes a restored database lists,
// for restore.sh to say and to compare generations by.
import { Database } from "bun:sqlite";

const path = process.argv[2] ?? "";
const db = new Database(path, { create: false });
try {
	console.log(db.query<{ n: number }, []>("SELECT count(*) AS n FROM faxes").get()?.n ?? 0);
} finally {
	db.close();
}
