import type { Database } from "bun:sqlite";
import { storedSenderKey } from "../fax/index.ts";

// A write transaction holds the lock other writers (a receiving `fax ingest`)
// wait for; batches keep each one short on a large database.
const BATCH_ROWS = 5000;

/**
 * Version 1: match keys are computed from the normalised sender (any script,
 * Unicode form, display name or comment). Only senders with non-ASCII text or
 * an at-sign can have a different key; the others are not touched.
 */
function recomputeSenderKeys(db: Database): void {
	const rows = db
		.query<{ id: number; sender: string; sender_key: string | null }, []>(
			"SELECT id, sender, sender_key FROM faxes WHERE sender GLOB '*[^ -~]*' OR sender GLOB '*@*'",
		)
		.all();
	const changed = rows
		.map((row) => ({ id: row.id, key: storedSenderKey(row.sender), old: row.sender_key }))
		.filter((row) => row.key !== row.old);
	const update = db.prepare("UPDATE faxes SET sender_key = $key WHERE id = $id");
	const apply = db.transaction((batch: typeof changed) => {
		for (const { id, key } of batch) update.run({ id, key });
	});
	for (let start = 0; start < changed.length; start += BATCH_ROWS) {
		apply.immediate(changed.slice(start, start + BATCH_ROWS));
	}
}

const UPGRADES: ((db: Database) => void)[] = [recomputeSenderKeys];

/**
 * Brings a database written by an earlier version up to date; `user_version`
 * counts the upgrades done. Each upgrade may run twice (two processes opening
 * the same old file at once) without harm.
 */
export function upgradeDatabase(db: Database): void {
	const { user_version: version } = db.query<{ user_version: number }, []>("PRAGMA user_version").get() ?? {
		user_version: 0,
	};
	for (let next = version; next < UPGRADES.length; next++) {
		UPGRADES[next]?.(db);
		db.exec(`PRAGMA user_version = ${next + 1}`);
	}
}
