// One model, fed line by line: every real call's session log (fixtures/hylafax/)
// read by a CallFeed as HylaFAX writes it, its writes landing at any point
// between lines (fast-check), leaves in calls_in_progress the call the fax's
// own report keeps when ingest reads the whole log; and `fax follow-call`, the
// real process, reads the log from a pipe in chunks cut anywhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { CallFeed } from "../../lib/live-calls/index.ts";
import { buildReport, callModel, liveProgress } from "../../lib/report/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

const ROOT = join(import.meta.dir, "../..");
const CALLS = readdirSync(join(ROOT, "fixtures/hylafax"), { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.map((entry) => entry.name)
	.sort();
const logOf = (call: string) => readFileSync(join(ROOT, "fixtures/hylafax", call, "receiver.log"), "latin1");

let dir: string;
let store: FaxStore;
beforeAll(() => {
	dir = makeTempDir();
	store = new FaxStore(openDatabase(join(dir, "faxes.sqlite")));
});
afterAll(async () => {
	await store.close();
	rmSync(dir, { recursive: true, force: true });
});

/** The call as the fax's report keeps it when ingest reads the whole log (lib/report/build-report.ts). */
function reportedCall(log: string) {
	const hylafax = { log, reason: null, callOnly: false };
	return buildReport({ source: "phone", bytes: new Uint8Array(), email: null, relayedByUs: false, hylafax })
		.call;
}

/** Feeds `lines`, running the feed's due writes after the lines `writeAfter` marks. */
async function feedLines(lines: string[], writeAfter: boolean[]): Promise<CallFeed> {
	const due: (() => void)[] = [];
	const feed = new CallFeed(store, {
		setTimer: (run) => {
			due.push(run);
			return () => due.splice(due.indexOf(run) >>> 0, 1);
		},
	});
	for (const [index, line] of lines.entries()) {
		feed.line(line);
		if (writeAfter[index % writeAfter.length]) for (const run of due.splice(0)) run();
	}
	await feed.end();
	return feed;
}

describe("every real call fed line by line", () => {
	test.each(CALLS)("%s: the last write is the call ingest reads from the whole log", async (call) => {
		const log = logOf(call);
		const lines = log.split("\n");
		await fc.assert(
			fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), async (writeAfter) => {
				const feed = await feedLines(lines, writeAfter);
				const key = feed.key as string;
				const stored = JSON.parse((await store.callRow(key))?.call ?? "null");
				expect(stored).toEqual(reportedCall(log));
				// The live model and the fax page's are one: the same call gives the same model.
				const report = { document: null, session: null, email: null, call: stored };
				expect(callModel(report)).toEqual(callModel({ ...report, call: reportedCall(log) }));
				expect(key).toBe(
					`${/SESSION BEGIN (\d+)/.exec(log)?.[1]}@${/^(\w{3} +\d+ \d\d:\d\d:\d\d\.\d\d)/.exec(log)?.[1]}`,
				);
				await store.removeCall(key);
			}),
			{ numRuns: 5 },
		);
	});

	test("the progress shown after each page's first frame names that page, for the clean 2-page call", async () => {
		const lines = logOf("clean").split("\n");
		const shown: string[] = [];
		for (let end = 1; end <= lines.length; end++) {
			const call = reportedCall(lines.slice(0, end).join("\n"));
			if (call === undefined) continue;
			const now = liveProgress(call, false).now;
			if (shown.at(-1) !== now) shown.push(now);
		}
		expect(shown.filter((now) => /^Page \d arriving/.test(now)).map((now) => now.slice(0, 6))).toEqual(
			expect.arrayContaining(["Page 1", "Page 2"]),
		);
		const first = (pattern: RegExp) => shown.findIndex((now) => pattern.test(now));
		const order = [/^Answered/, /^Training at V\.17 14,400 bit\/s/, /^Page 1 arriving/, /^Page 2 arriving/];
		const indexes = order.map(first);
		expect(indexes.every((index) => index >= 0)).toBe(true);
		expect([...indexes].sort((a, b) => a - b)).toEqual(indexes);
		expect(shown.at(-1)).toBe("Page 2 came whole, the last one: the call is ending.");
	});
});

test("a feed whose writes fail says so once per outage, and writes the call once the database takes it again", async () => {
	const path = join(dir, "outage.sqlite");
	const feedStore = new FaxStore(openDatabase(path));
	const other = openDatabase(path);
	const told: string[] = [];
	const due: (() => void)[] = [];
	const feed = new CallFeed(feedStore, {
		failed: (message) => told.push(message),
		setTimer: (run) => {
			due.push(run);
			return () => {};
		},
	});
	const lines = logOf("clean").split("\n");
	const writeDue = async () => {
		for (const run of due.splice(0)) run();
		await Bun.sleep(0);
	};
	const table = other.query("SELECT sql FROM sqlite_master WHERE name = 'calls_in_progress'").get() as {
		sql: string;
	};
	other.exec("DROP TABLE calls_in_progress");
	for (const line of lines.slice(0, 20)) {
		feed.line(line);
		await writeDue();
	}
	expect(told).toEqual([
		`${feed.key}: the call's progress could not be written: no such table: calls_in_progress`,
	]);
	other.exec(table.sql);
	for (const line of lines.slice(20)) {
		feed.line(line);
		await writeDue();
	}
	await feed.end();
	expect(JSON.parse((await feedStore.callRow(feed.key as string))?.call ?? "null")).toEqual(
		reportedCall(logOf("clean")),
	);
	expect(told).toHaveLength(1);
	other.close();
	await feedStore.close();
});
