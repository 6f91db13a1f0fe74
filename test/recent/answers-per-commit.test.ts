import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { RecentFaxes } from "../../lib/recent/index.ts";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";
import { makeTempDir } from "../../testkit/server.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const row = (i: number) => ({
	slug: `fax_c${i}`,
	source: "phone" as const,
	sender: null,
	received_at: NOW_SECONDS - 100 + i,
	page_count: 1,
	file_size: 1000,
});

test("a list answer and its compressed forms are made once per commit, then made anew", async () => {
	const dir = makeTempDir();
	dirs.push(dir);
	const db = openDatabase(join(dir, "faxes.sqlite"));
	const store = new FaxStore(db);
	await store.write(async (writer) => {
		for (let i = 0; i < 40; i++) await writer.insert(row(i));
	});
	const recent = await RecentFaxes.open(
		store,
		(fax) => JSON.stringify({ slug: fax.slug, padding: "x".repeat(40) }),
		NOW_SECONDS,
	);
	const query = { after: NOW_SECONDS - 3600, sender: { kind: "any" } as const, limit: 100 };
	const first = await recent.list(query, NOW_SECONDS);
	const br = first.encoded("br");
	expect(br).not.toBeNull();
	for (let i = 0; i < 3; i++) {
		const again = await recent.list(query, NOW_SECONDS);
		expect(again).toBe(first);
		expect(again.encoded("br")).toBe(br as Uint8Array);
	}
	await store.insert(row(40));
	await recent.settle();
	const next = await recent.list(query, NOW_SECONDS);
	expect(next).not.toBe(first);
	expect(next.etag).not.toBe(first.etag);
	expect(await recent.list(query, NOW_SECONDS)).toBe(next);
	db.close();
});
