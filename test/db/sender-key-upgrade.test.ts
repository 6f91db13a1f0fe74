import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import type { FaxRow } from "../../lib/fax/index.ts";
import { fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { makeTempDir, useTestServers } from "../../testkit/server.ts";

const startServer = useTestServers();

// Keys as an earlier version stored them: lower case and white space removed,
// nothing else normalised, the comment and display name kept.
const EARLIER_KEYS: [string, string, string][] = [
	[
		"fax_fullWidth",
		"\uff0b\uff11 \uff15\uff15\uff15 \uff18\uff16\uff17 \uff15\uff13\uff10\uff19",
		"\uff0b\uff11\uff15\uff15\uff15\uff18\uff16\uff17\uff15\uff13\uff10\uff19",
	],
	[
		"fax_arabic",
		"+\u0661 \u0665\u0665\u0665 \u0668\u0666\u0667 \u0665\u0663\u0660\u0669",
		"\u0661\u0665\u0665\u0665\u0668\u0666\u0667\u0665\u0663\u0660\u0669",
	],
	["fax_comment", "secret.person@example.org (Secret Person)", "secret.person@example.org(secretperson)"],
	["fax_plain", "+1 555 867 5309", "15558675309"],
];

function row(slug: string, sender: string, receivedAt: number): FaxRow {
	return { slug, source: "phone", sender, received_at: receivedAt, page_count: 1, file_size: 1000 };
}

/** A database written by an earlier version: its rows carry the keys of that version and no schema version. */
async function earlierDatabase(path: string): Promise<void> {
	const db = openDatabase(path);
	const store = new FaxStore(db);
	for (const [slug, sender] of EARLIER_KEYS) {
		await store.insert(row(slug, sender, NOW_SECONDS - 60));
	}
	const update = db.prepare("UPDATE faxes SET sender_key = $key WHERE slug = $slug");
	for (const [slug, , key] of EARLIER_KEYS) update.run({ slug, key });
	db.exec("PRAGMA user_version = 0");
	db.close();
}

test("a database from an earlier version gets its match keys recomputed when opened", async () => {
	const dir = makeTempDir();
	try {
		const path = join(dir, "earlier.sqlite");
		await earlierDatabase(path);
		const server = await startServer({ clock: fixedClock, env: { DATABASE_PATH: path } });
		const slugsFor = async (from: string) => {
			const response = await server.request(`/api/faxes?from=${encodeURIComponent(from)}`);
			return ((await response.json()) as { slug: string }[]).map((fax) => fax.slug);
		};
		expect(await slugsFor("+15558675309")).toEqual(["fax_plain", "fax_arabic", "fax_fullWidth"]);
		expect(await slugsFor("secret.person@example.org")).toEqual(["fax_comment"]);

		const db = new Database(path, { readonly: true });
		expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 8 });
		db.close();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("a database already upgraded is left as it is", async () => {
	const dir = makeTempDir();
	try {
		const path = join(dir, "current.sqlite");
		const db = openDatabase(path);
		await new FaxStore(db).insert(row("fax_current", "ACME 42", NOW_SECONDS));
		db.exec("UPDATE faxes SET sender_key = 'kept'");
		db.close();
		const reopened = openDatabase(path);
		expect(reopened.query("SELECT sender_key FROM faxes").all()).toEqual([{ sender_key: "kept" }]);
		reopened.close();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
