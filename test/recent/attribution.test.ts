import { describe, expect, test } from "bun:test";
import { FaxStore } from "../../lib/db/index.ts";
import { storedSenderKey } from "../../lib/fax/index.ts";
import { type FaxChange, RecentFaxes } from "../../lib/recent/index.ts";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";
import { ENGINES, useStoreEngines } from "../../testkit/store-engines.ts";

// Which held requests a commit wakes depends on the senders it names: a
// change memory cannot attribute wakes every one of them. Ids passed over (on
// PostgreSQL a failed ingest still takes the sequence's next value) hide no
// fax, and a fax older than memory's window still has a sender.

const engines = useStoreEngines();

const row = (slug: string, sender: string, receivedAt: number) => ({
	slug,
	source: "phone" as const,
	sender,
	received_at: receivedAt,
	page_count: 1,
	file_size: 1000,
});

/** Takes the next id without using it, as a failed ingest does on PostgreSQL. */
const SKIP_ID = {
	sqlite: "UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'faxes'",
	postgres: "SELECT nextval(pg_get_serial_sequence('faxes', 'id'))",
};

describe.each(ENGINES)("on %s", (engine) => {
	test("ids passed over and a fax older than memory's window still name the senders that changed", async () => {
		const opened = await engines.open(await engines.fresh(engine));
		const store = new FaxStore(opened);
		await store.insert(row("fax_Attr0001", "+1 555 000 0001", NOW_SECONDS - 60));
		const recent = await RecentFaxes.open(store, (fax) => JSON.stringify({ slug: fax.slug }), NOW_SECONDS);
		const changes: FaxChange[] = [];
		recent.watch((change) => changes.push(change));
		const seen = async () => {
			await recent.settle();
			await recent.list({ after: NOW_SECONDS - 3600, sender: { kind: "any" }, limit: 100 }, NOW_SECONDS);
			return changes.splice(0).map((change) => ({ ...change, senders: [...change.senders] }));
		};

		await opened.sql.prepare(SKIP_ID[engine]).all();
		await store.insert(row("fax_Attr0002", "+1 555 000 0002", NOW_SECONDS - 30));
		expect(await seen()).toEqual([{ senders: [storedSenderKey("+1 555 000 0002")], unattributed: false }]);

		await store.insert(row("fax_Attr0003", "+1 555 000 0003", NOW_SECONDS - 3 * 86_400));
		expect(await seen()).toEqual([{ senders: [storedSenderKey("+1 555 000 0003")], unattributed: false }]);
		await store.close();
	});
});
