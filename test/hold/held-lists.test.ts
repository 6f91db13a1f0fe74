import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase, type SenderFilter } from "../../lib/db/index.ts";
import { HeldLists, type ListWait } from "../../lib/hold/index.ts";
import { RecentFaxes } from "../../lib/recent/index.ts";
import { makeTempDir } from "../../testkit/server.ts";

// The held requests a commit re-checks, with the real store: a second
// connection to the same file stands for the other process that writes.

const NOW = Math.floor(Date.now() / 1000);
const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function twoConnections(): { reader: FaxStore; writer: FaxStore } {
	const dir = makeTempDir();
	dirs.push(dir);
	const path = join(dir, "faxes.sqlite");
	return { reader: new FaxStore(openDatabase(path)), writer: new FaxStore(openDatabase(path)) };
}

function insert(store: FaxStore, slug: string, sender: string | null): Promise<void> {
	return store.write((writer) =>
		writer.insert({ slug, source: "phone", sender, received_at: NOW - 5, page_count: 1, file_size: 10 }),
	);
}

const json = (row: { slug: string }) => `"${row.slug}"`;

/** A held request of `sender` (undefined: every sender), counting how often its answer is asked for. */
function waitFor(
	faxes: RecentFaxes,
	sender: string | null | undefined,
	checks: Map<string, number>,
	name: string,
) {
	const filter: SenderFilter =
		sender === undefined
			? { kind: "any" }
			: sender === null
				? { kind: "unknown" }
				: { kind: "key", key: sender };
	const gone = new AbortController();
	const wait: ListWait = {
		clientKey: name,
		ifNoneMatch: null,
		signal: gone.signal,
		keepOpen: () => {},
		seconds: 30,
		sender,
		answerAt(now) {
			checks.set(name, (checks.get(name) ?? 0) + 1);
			return faxes.list({ after: NOW - 60, sender: filter, limit: 100 }, now);
		},
	};
	return { wait, gone };
}

test("a commit re-checks only the held requests of its senders and those of every sender", async () => {
	const { reader, writer } = twoConnections();
	const faxes = await RecentFaxes.open(reader, json, NOW);
	const held = new HeldLists(faxes, { maxHeld: 100, maxPerClient: 100 });
	const checks = new Map<string, number>();
	const requests = [
		waitFor(faxes, "15550001111", checks, "one"),
		waitFor(faxes, "15550002222", checks, "two"),
		waitFor(faxes, null, checks, "unknown"),
		waitFor(faxes, undefined, checks, "anyone"),
	];
	const answers = requests.map(({ wait }) => held.hold(wait));
	expect(held.size).toBe(4);
	expect(Object.fromEntries(checks)).toEqual({ one: 1, two: 1, unknown: 1, anyone: 1 });

	await insert(writer, "fax_two1", "+1 555 000 2222");
	await Bun.sleep(100);
	expect(held.size).toBe(2);
	expect(Object.fromEntries(checks)).toEqual({ one: 1, two: 2, unknown: 1, anyone: 2 });
	expect([(await answers[1])?.text, (await answers[3])?.text]).toEqual(['["fax_two1"]', '["fax_two1"]']);

	await insert(writer, "fax_unknown1", null);
	await Bun.sleep(100);
	expect(Object.fromEntries(checks)).toEqual({ one: 1, two: 2, unknown: 2, anyone: 2 });
	expect((await answers[2])?.text).toBe('["fax_unknown1"]');
	expect(held.size).toBe(1);

	requests[0]?.gone.abort();
	expect((await answers[0])?.text).toBe("[]");
	expect(held.size).toBe(0);
});

test("a removal memory cannot place (a fax older than its window) re-checks every held request", async () => {
	const { reader, writer } = twoConnections();
	await writer.write((w) =>
		w.insert({
			slug: "fax_old1",
			source: "phone",
			sender: "+1 555 000 3333",
			received_at: NOW - 7200,
			page_count: 1,
			file_size: 10,
		}),
	);
	const faxes = await RecentFaxes.open(reader, json, NOW, { windowSeconds: 3600 });
	const held = new HeldLists(faxes, { maxHeld: 100, maxPerClient: 100 });
	const checks = new Map<string, number>();
	const requests = [
		waitFor(faxes, "15550001111", checks, "one"),
		waitFor(faxes, undefined, checks, "anyone"),
	];
	const answers = requests.map(({ wait }) => held.hold(wait));
	expect(await writer.remove("fax_old1", NOW)).toBe(true);
	await Bun.sleep(100);
	expect(Object.fromEntries(checks)).toEqual({ one: 2, anyone: 2 });
	held.releaseAll();
	// Each is answered once memory holds what was committed until now (HeldLists.releaseAll).
	await Promise.all(answers);
	expect(held.size).toBe(0);
});

test("a held request whose answer fails at its time limit is answered with the failure (a 503), not thrown in a timer", async () => {
	const { reader } = twoConnections();
	const faxes = await RecentFaxes.open(reader, json, NOW);
	let limit: (() => void) | undefined;
	const held = new HeldLists(
		faxes,
		{ maxHeld: 100, maxPerClient: 100 },
		{
			setTimer: (run) => {
				limit = run;
				return () => {};
			},
		},
	);
	const { wait } = waitFor(faxes, undefined, new Map(), "one");
	const away = Object.assign(new Error("PostgreSQL did not answer in 60 s"), { code: "08006" });
	let calls = 0;
	const answer = held.hold({
		...wait,
		answerAt: (now) => {
			if (++calls > 1) throw away;
			return wait.answerAt(now);
		},
	});
	expect(held.size).toBe(1);
	limit?.();
	expect(await Promise.resolve(answer).catch((error: unknown) => error)).toBe(away);
	expect(held.size).toBe(0);
});
