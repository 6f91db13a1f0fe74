import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { RecentFaxes } from "../../lib/recent/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

const NOW = 2_000_000_000;
const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function storeWith(times: number[]): Promise<FaxStore> {
	const dir = makeTempDir();
	dirs.push(dir);
	const store = new FaxStore(openDatabase(join(dir, "faxes.sqlite")));
	await store.write(async (writer) => {
		for (const [i, receivedAt] of times.entries()) {
			await writer.insert({
				slug: `fax_b${i}`,
				source: "phone",
				sender: null,
				received_at: receivedAt,
				page_count: null,
				file_size: null,
			});
		}
	});
	return store;
}

const json = (row: { slug: string }) => `"${row.slug}"`;
const any = { kind: "any" } as const;

test("memory holds the window only, and lets faxes go as they leave it, a minute at a time", async () => {
	const store = await storeWith([NOW - 7200, NOW - 3601, NOW - 3599, NOW - 10]);
	const recent = await RecentFaxes.open(store, json, NOW, { windowSeconds: 3600 });
	expect([recent.size, recent.coveredAfter]).toEqual([2, NOW - 3600]);
	await recent.list({ after: 0, sender: any, limit: 1 }, NOW + 59);
	expect([recent.size, recent.coveredAfter]).toEqual([2, NOW - 3600]);
	await recent.list({ after: 0, sender: any, limit: 1 }, NOW + 3585);
	expect([recent.size, recent.coveredAfter]).toEqual([1, NOW - 15]);
	// Older answers come from SQLite.
	expect((await recent.list({ after: 0, sender: any, limit: 100 }, NOW + 3585)).text).toBe(
		'["fax_b3","fax_b2","fax_b1","fax_b0"]',
	);
});

test("memory holds at most maxEntries faxes: the newest, never half of one second", async () => {
	const store = await storeWith([NOW - 50, NOW - 40, NOW - 30, NOW - 30, NOW - 20, NOW - 10]);
	const recent = await RecentFaxes.open(store, json, NOW, { maxEntries: 3 });
	expect([recent.size, recent.coveredAfter]).toEqual([2, NOW - 30]);
	await store.insert({
		slug: "fax_new",
		source: "phone",
		sender: null,
		received_at: NOW,
		page_count: null,
		file_size: null,
	});
	await recent.settle();
	expect((await recent.list({ after: NOW - 60, sender: any, limit: 3 }, NOW)).text).toBe(
		'["fax_new","fax_b5","fax_b4"]',
	);
	expect([recent.size, recent.coveredAfter]).toEqual([3, NOW - 30]);
	expect((await recent.list({ after: NOW - 60, sender: any, limit: 5 }, NOW)).text).toBe(
		'["fax_new","fax_b5","fax_b4","fax_b3","fax_b2"]',
	);
});

test("remembered answers are bounded by what they cost, also when each is an empty list", async () => {
	const store = await storeWith([NOW - 10]);
	const recent = await RecentFaxes.open(store, json, NOW);
	// Distinct senders nobody has: every answer is "[]", 2 characters, and a
	// new entry; counted by their text alone, all 100,000 were kept.
	for (let i = 0; i < 100_000; i++) {
		const answer = await recent.list(
			{ after: NOW - 60, sender: { kind: "key", key: `+1555${i}` }, limit: 1 },
			NOW,
		);
		expect(answer.text).toBe("[]");
	}
	expect(recent.rememberedAnswers).toBeLessThan(50_000);
	expect(recent.rememberedAnswers).toBeGreaterThan(0);
});
