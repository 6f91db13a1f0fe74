// /faxtest in Chromium while calls are received: real HylaFAX session logs
// (fixtures/hylafax) fed line by line through a CallFeed on the server's
// database, as `fax follow-call` feeds them, and a fax handed over as faxrcvd
// hands it over (`fax receive-hylafax`). One page, opened before any call and
// never reloaded, follows them all on its one stream of /faxtest/calls; the
// test reads its DOM over CDP every few milliseconds and times each change
// against the moment the feed's write was committed. The tests share that
// page and run in order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import type { FaxStore } from "../../lib/db/index.ts";
import { newSlug } from "../../lib/fax/index.ts";
import { CallFeed, type CallView } from "../../lib/live-calls/index.ts";
import { liveProgress } from "../../lib/report/index.ts";
import { setPageHidden, useBrowser } from "../../testkit/browser.ts";
import { captureLog, type LogLine } from "../../testkit/log.ts";
import { freePort } from "../../testkit/ports.ts";
import { runCommand } from "../../testkit/processes.ts";
import { openServerStore, runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

const browser = useBrowser();
const ROOT = join(import.meta.dir, "../..");
const HYLAFAX = join(ROOT, "fixtures/hylafax");
const PDF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const linesOf = (call: string) =>
	readFileSync(join(HYLAFAX, call, "receiver.log"), "latin1")
		.split("\n")
		.filter((line) => line !== "");

// Fast, but never so fast that a step the page must show is coalesced away:
// the replay holds on a line that starts one until the feed has written it.
const LINE_MS = 20;
// The page's promise: a line of the call is on the page within 1 s of its write.
const SHOWN_WITHIN_MS = 1000;
// How often the test reads the page's DOM (over CDP: each read takes a few ms more).
const POLL_MS = 10;
// A stream lasts its `wait` (25 s) shortened by up to a tenth at random (lib/live-calls/call-streams.ts).
const STREAM_SHORTEST_MS = 22_500;
const STREAM_LONGEST_MS = 25_000;
// The page keeps an entry whose fax is being listed 5 s at most (live.js ENDING_KEPT_MS).
const ENDING_GONE_WITHIN_MS = 6000;

// The steps of the clean call the page must show, in this order (lib/report/live-progress.ts).
const STEPS = [
	/^Answered: waiting for your fax machine's signal\.$/,
	/^Training at V\.17 14,400 bit\/s: checking the line at that speed\.$/,
	/^Page 1 arriving: /,
	/^Page 2 arriving: /,
	/^Page 2 came whole, the last one: the call is ending\.$/,
	/^The call has ended: its fax is being listed\.$/,
];
const SILENCE =
	/^Your machine has gone silent: nothing from it for (\d+) s\. Our receiver waits for it until its own time limit, then ends the call\.$/;

/** One call entry as the page shows it. */
interface ShownCall {
	key: string;
	now: string;
	silence: string;
	ending: boolean;
}

/** The page at one moment, and when the test read it (performance.now()). */
interface Snapshot {
	at: number;
	calls: ShownCall[];
	callsHidden: boolean;
	faxes: string[];
}

/** One write of the feed, committed at `at` (performance.now()). */
interface Written {
	at: number;
	key: string;
	now: string;
	heardAt: number | null;
}

/** One request of the page to /faxtest/calls, by the test's clock. */
interface StreamRequest {
	url: string;
	startedAt: number;
	endedAt: number | null;
	failure: string | null;
}

function look(page: Page): Promise<Omit<Snapshot, "at">> {
	return page.evaluate(() => {
		const document = Reflect.get(globalThis, "document");
		const list = document.getElementById("calls");
		const calls = [...list.querySelectorAll("li.call")].map((item) => ({
			key: String(item.dataset.call),
			now: String(item.querySelector(".now")?.textContent ?? ""),
			silence: String(item.querySelector(".silence")?.textContent ?? ""),
			ending: Boolean(item.classList.contains("ending")),
		}));
		const faxes = [...document.querySelectorAll("#faxes > li")].map((item) => String(item.dataset.slug));
		return { calls, callsHidden: Boolean(list.hidden), faxes };
	});
}

/**
 * Reads the page's DOM over CDP every POLL_MS and keeps each state that
 * differs from the one before, timed when the read came back: a time shown
 * is at most a read late, never early.
 */
class DomWatch {
	readonly seen: Snapshot[] = [];
	/** Reads that failed (the page navigating, closing): none is expected. */
	readonly errors: string[] = [];
	#running = true;
	readonly #done: Promise<void>;

	constructor(page: Page) {
		this.#done = this.#loop(page);
	}

	async #loop(page: Page): Promise<void> {
		let last = "";
		while (this.#running) {
			const state = await look(page).catch((error) => {
				this.errors.push(String(error));
				return null;
			});
			const at = performance.now();
			const text = JSON.stringify(state);
			if (state !== null && text !== last) {
				this.seen.push({ at, ...state });
				last = text;
			}
			await Bun.sleep(POLL_MS);
		}
	}

	/** The first state seen at or after `since` that `match` accepts. */
	first(match: (state: Snapshot) => boolean, since = 0): Snapshot | undefined {
		return this.seen.find((state) => state.at >= since && match(state));
	}

	async until(what: string, match: (state: Snapshot) => boolean, since: number, timeoutMs: number) {
		const deadline = performance.now() + timeoutMs;
		for (;;) {
			const found = this.first(match, since);
			if (found !== undefined) return found;
			if (performance.now() > deadline)
				throw new Error(
					`${what}: not seen within ${timeoutMs} ms; last seen ${JSON.stringify(this.seen.at(-1))}`,
				);
			await Bun.sleep(POLL_MS);
		}
	}

	async stop(): Promise<void> {
		this.#running = false;
		await this.#done;
	}
}

/** Every write the feeds make through `store`, timed when it was committed. */
function recordWrites(store: FaxStore): Written[] {
	const writes: Written[] = [];
	const put = store.putCall.bind(store);
	store.putCall = async (row) => {
		await put(row);
		const view = JSON.parse(row.view) as CallView;
		writes.push({ at: performance.now(), key: row.call_key, now: view.now, heardAt: view.heardAt });
	};
	return writes;
}

let server: TestServer;
let store: FaxStore;
let writes: Written[];
let page: Page;
let watch: DomWatch;
const accessLog: LogLine[] = [];
const streams: StreamRequest[] = [];
const consoleErrors: string[] = [];
let cleanKey = "";
let silentKey = "";

/** Lists the fax of call `key` as ingest does: its row ends the call in the same commit. Returns its slug. */
async function listCallFax(on: FaxStore, key: string): Promise<string> {
	const slug = newSlug();
	const fax = {
		slug,
		source: "phone" as const,
		sender: "IAXmodem",
		received_at: Math.floor(Date.now() / 1000),
		page_count: null,
		file_size: null,
	};
	await on.insert(fax, { endsCall: key });
	return slug;
}

function entryOf(state: Snapshot, key: string): ShownCall | undefined {
	return state.calls.find((call) => call.key === key);
}

beforeAll(async () => {
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	server = await startTestServer({
		env: { PORT: String(port), CDN_BASE_URL: `${base}/cdn`, SITE_BASE_URL: base },
		logger: captureLog("info", accessLog).logger,
	});
	store = await openServerStore(server);
	writes = recordWrites(store);
	// A fax listed before: the call's fax must come on top of it.
	expect(
		(await runFax(["ingest", PDF, "--source", "phone", "--sender", "+1 555 070 0001"], server.env)).code,
	).toBe(0);
	page = await browser.newPage();
	recordStreams(page);
	await page.addInitScript(watchPageSecurityAndAborts);
	const firstStream = page.waitForRequest((request) => request.url().includes("/faxtest/calls"));
	await page.goto(`${server.baseUrl}/faxtest`);
	await firstStream;
	// Set once: still there at the end, the page was never reloaded.
	await page.evaluate(() => Reflect.set(globalThis, "loadedOnce", true));
	watch = new DomWatch(page);
	await watch.until("the page", () => true, 0, 5000);
}, 60_000);

/** The page's console errors and each stream request's start, end and failure, as Chromium's events give them. */
function recordStreams(page: Page): void {
	page.on("console", (message) => {
		if (message.type() === "error") consoleErrors.push(message.text());
	});
	page.on("pageerror", (error) => consoleErrors.push(`pageerror: ${error.message}`));
	const byRequest = new Map<Request, StreamRequest>();
	page.on("request", (request) => {
		if (!request.url().includes("/faxtest/calls")) return;
		const stream = { url: request.url(), startedAt: performance.now(), endedAt: null, failure: null };
		byRequest.set(request, stream);
		streams.push(stream);
	});
	page.on("requestfinished", (request) => {
		const stream = byRequest.get(request);
		if (stream !== undefined) stream.endedAt = performance.now();
	});
	page.on("requestfailed", (request) => {
		const stream = byRequest.get(request);
		if (stream === undefined) return;
		stream.endedAt = performance.now();
		stream.failure = request.failure()?.errorText ?? "failed";
	});
}

/** In the page: its CSP violations, and whether its script aborted each stream it opened. */
function watchPageSecurityAndAborts(): void {
	const violations: string[] = [];
	Reflect.set(globalThis, "cspViolations", violations);
	Reflect.get(globalThis, "document").addEventListener(
		"securitypolicyviolation",
		(event: { violatedDirective: string; blockedURI: string }) =>
			violations.push(`${event.violatedDirective} ${event.blockedURI}`),
	);
	// Whether the page's script aborted each stream: to Chromium's network
	// events a stream that ended at its time limit is ERR_ABORTED too.
	const aborted: boolean[] = [];
	Reflect.set(globalThis, "streamsAborted", aborted);
	const original = globalThis.fetch;
	Reflect.set(globalThis, "fetch", (input: string, init?: RequestInit) => {
		if (String(input).includes("/faxtest/calls")) {
			const index = aborted.push(false) - 1;
			init?.signal?.addEventListener("abort", () => {
				aborted[index] = true;
			});
		}
		return original(input, init);
	});
}

afterAll(async () => {
	await watch?.stop();
	await page?.context().close();
	await store?.close();
	await server?.stop();
});

async function untilWritten(match: RegExp, key: string, timeoutMs: number): Promise<void> {
	const deadline = performance.now() + timeoutMs;
	while (!writes.some((write) => write.key === key && match.test(write.now))) {
		if (performance.now() > deadline)
			throw new Error(`the feed did not write ${match} within ${timeoutMs} ms`);
		await Bun.sleep(2);
	}
}

/**
 * Feeds `lines` one every LINE_MS; on a line that starts one of `steps`, holds
 * until the feed has written it, so the page has that step to show.
 */
async function replay(feed: CallFeed, lines: string[], steps: RegExp[]): Promise<number> {
	let lastLineAt = 0;
	for (const line of lines) {
		feed.line(line);
		lastLineAt = performance.now();
		const now = liveProgress(feed.call(), feed.over).now;
		const step = steps.find((pattern) => pattern.test(now));
		if (step !== undefined && feed.key !== null) await untilWritten(step, feed.key, 2000);
		await Bun.sleep(LINE_MS);
	}
	return lastLineAt;
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

describe("calls in progress on /faxtest, in Chromium, without reload", () => {
	test("a call fed line by line shows each of its steps in order, each within 1 s of the feed's write", async () => {
		// Opened with no call: the list of calls is there, empty and hidden.
		expect(watch.seen[0]?.calls ?? []).toEqual([]);
		expect(watch.seen[0]?.callsHidden).toBe(true);
		const feed = new CallFeed(store);
		await replay(feed, linesOf("clean"), STEPS);
		await feed.end();
		cleanKey = feed.key ?? "";
		expect(cleanKey).toBe("000000002@Nov 26 10:28:30.93");
		await watch.until(
			"the ended call",
			(state) => STEPS[5]?.test(entryOf(state, cleanKey)?.now ?? "") === true,
			0,
			5000,
		);

		const mine = writes.filter((write) => write.key === cleanKey);
		const shownAt = STEPS.map((step) => {
			const written = mine.find((write) => step.test(write.now));
			const shown = watch.first((state) => step.test(entryOf(state, cleanKey)?.now ?? ""));
			return {
				step: String(step),
				writtenAt: written?.at,
				latency: (shown?.at ?? Number.NaN) - (written?.at ?? 0),
			};
		});
		console.log(
			"feed write → DOM (ms), per step:",
			shownAt.map(({ step, latency }) => `${step} ${latency.toFixed(0)}`).join("; "),
		);
		// Every write of the call that changed its words: when the DOM first showed them.
		const changed = mine.filter((write, index) => write.now !== mine[index - 1]?.now);
		const all = changed.map((write) => {
			const shown = watch.first((state) => entryOf(state, cleanKey)?.now === write.now, write.at - 50);
			return shown === undefined ? null : shown.at - write.at;
		});
		const shownLatencies = all.filter((latency) => latency !== null);
		console.log(
			`${mine.length} writes, ${changed.length} changing the words: ${shownLatencies.length} shown, median ${median(shownLatencies).toFixed(0)} ms, max ${Math.max(...shownLatencies).toFixed(0)} ms`,
		);
		// Each step written by the feed, and on the page within 1 s of that write.
		expect(
			shownAt.filter(({ writtenAt, latency }) => writtenAt === undefined || !(latency < SHOWN_WITHIN_MS)),
		).toEqual([]);
		// In the log's order: each step first shown after the one before it.
		const order = STEPS.map(
			(step) => watch.first((state) => step.test(entryOf(state, cleanKey)?.now ?? ""))?.at ?? 0,
		);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		// The sender masked, what it has done so far listed.
		const item = page.locator(`li.call[data-call="${cleanKey}"]`);
		expect(await item.locator(".from").innerText()).toBe("IAXmodem");
		expect(await item.locator("ol.done > li").allInnerTexts()).toContain("Page 2 came whole in 0:00:04");
		expect(await page.locator("#calls").isVisible()).toBe(true);
	}, 60_000);

	test("its fax handed over as faxrcvd does: the entry gives way and the fax comes on top, within 6 s", async () => {
		const copy = join(server.dir, "fax000000001.tif");
		copyFileSync(join(HYLAFAX, "clean/received.tif"), copy);
		const now = new Date();
		utimesSync(copy, now, now);
		const handedOver = runCommand(
			[
				"sh",
				"-c",
				'exec "$0" bin/fax.ts receive-hylafax fax000000001.tif "--reason=" < "$1" 3< "$2"',
				process.execPath,
				copy,
				join(HYLAFAX, "clean/receiver.log"),
			],
			{ cwd: ROOT, env: server.env },
		);
		// When the fax's row and its call's mark were committed, by polling the database.
		let listedAt = 0;
		let slug: string | null = null;
		const deadline = performance.now() + 30_000;
		while (slug === null && performance.now() < deadline) {
			slug = (await store.callRow(cleanKey))?.listed ?? null;
			listedAt = performance.now();
			if (slug === null) await Bun.sleep(2);
		}
		const result = await handedOver;
		expect(result.code).toBe(0);
		expect(slug).not.toBeNull();
		expect(result.stdout).toContain(`listed as ${slug} (2 pages)`);
		const onTop = await watch.until(
			"the fax on top",
			(state) => state.faxes[0] === slug,
			listedAt,
			ENDING_GONE_WITHIN_MS,
		);
		const gone = await watch.until(
			"the call's entry gone",
			(state) => entryOf(state, cleanKey) === undefined,
			listedAt,
			ENDING_GONE_WITHIN_MS,
		);
		const ending = watch.first((state) => entryOf(state, cleanKey)?.ending === true, listedAt);
		console.log(
			`listed → fax on top ${(onTop.at - listedAt).toFixed(0)} ms; → entry marked ending ${ending === undefined ? "never" : `${(ending.at - listedAt).toFixed(0)} ms`}; → entry gone ${(gone.at - listedAt).toFixed(0)} ms`,
		);
		expect(onTop.faxes.length).toBe(2);
		// Never both at once for long, nor neither: the entry leaves as the list shows its fax.
		expect(Math.abs(gone.at - onTop.at)).toBeLessThan(SHOWN_WITHIN_MS);
		expect(await page.locator("#calls").isHidden()).toBe(true);
		const fax = page.locator(`#faxes > li:first-child[data-slug="${slug}"]`);
		expect(await fax.getAttribute("class")).toBe("new");
		// The same masked sender as its call's entry showed.
		expect(await fax.locator(".from").innerText()).toBe("IAXmodem");
	}, 60_000);

	test("a sender gone silent mid page 2: after 10 s the entry says so, and counts on", async () => {
		const lines = linesOf("vanish-silent");
		const last = lines.findLastIndex((line) => line.includes("RECV received frame number"));
		const feed = new CallFeed(store);
		// When the feed read the last line heard from the sender (its heardAt, by the same machine's clock).
		const heardAt = await replay(feed, lines.slice(0, last + 1), [
			/^Page 2 arriving: 11 ECM frames so far\.$/,
		]);
		silentKey = feed.key ?? "";
		const written = writes.findLast((write) => write.key === silentKey);
		expect(written?.now).toBe("Page 2 arriving: 11 ECM frames so far.");
		const shown = await watch.until(
			"the silence",
			(state) => SILENCE.test(entryOf(state, silentKey)?.silence ?? ""),
			heardAt,
			15_000,
		);
		const first = Number(SILENCE.exec(entryOf(shown, silentKey)?.silence ?? "")?.[1]);
		console.log(`last line heard → silence shown: ${(shown.at - heardAt).toFixed(0)} ms, saying ${first} s`);
		expect(shown.at - heardAt).toBeGreaterThanOrEqual(10_000 - 50);
		expect(shown.at - heardAt).toBeLessThan(12_000);
		expect(first).toBe(10);
		const item = page.locator(`li.call[data-call="${silentKey}"]`);
		await Bun.sleep(2500);
		const later = Number(SILENCE.exec(await item.locator(".silence").innerText())?.[1]);
		const elapsed = (performance.now() - heardAt) / 1000;
		expect(later).toBeGreaterThanOrEqual(first + 2);
		expect(Math.abs(later - elapsed)).toBeLessThan(1.5);
		// Nothing came from the feed meanwhile: the page counts by itself.
		expect(writes.findLast((write) => write.key === silentKey)).toBe(written);
		expect(await item.locator(".now").innerText()).toBe("Page 2 arriving: 11 ECM frames so far.");
		await browser.screenshot(page, "live-calls-silent");
		// The server writes the same words into a page made now, read without script.
		const plain = await browser.newPage({ javaScriptEnabled: false });
		await plain.goto(`${server.baseUrl}/faxtest`);
		expect(await plain.locator(`li.call[data-call="${silentKey}"] .silence`).innerText()).toMatch(SILENCE);
		await plain.context().close();
		// With a call in progress in its HTML, the page still has no inline script.
		const answer = await server.request("/faxtest");
		const policy = answer.headers.get("content-security-policy") ?? "";
		expect(policy).toContain("script-src 'self';");
		expect(policy).not.toContain("unsafe-inline");
		const html = await answer.text();
		expect(html).toContain(`<li class="call" data-call="${silentKey}" data-heard="`);
		expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/faxtest/live.js" defer>']);
	}, 60_000);

	test("the stream tells first (the list waits its 3 s): the entry says its fax is being listed until the list shows it", async () => {
		// Two faxes listed one after the other: the list may ask again only 3 s after it asked for the second.
		const other = async (sender: string) => {
			const slug = newSlug();
			await store.insert({
				slug,
				source: "email",
				sender,
				received_at: Math.floor(Date.now() / 1000),
				page_count: null,
				file_size: null,
			});
			await watch.until(`${sender} on top`, (state) => state.faxes[0] === slug, 0, 10_000);
		};
		await other("first@example.net");
		await other("second@example.net");
		// The silent call's fax, listed as ingest lists it: its row ends the call in the same commit.
		const slug = await listCallFax(store, silentKey);
		const listedAt = performance.now();
		const ending = await watch.until(
			"the entry ending",
			(state) => entryOf(state, silentKey)?.ending === true,
			listedAt,
			SHOWN_WITHIN_MS,
		);
		expect(entryOf(ending, silentKey)).toEqual({
			key: silentKey,
			now: "The call has ended: its fax is being listed.",
			silence: "",
			ending: true,
		});
		expect(ending.faxes[0]).not.toBe(slug);
		const onTop = await watch.until(
			"the fax on top",
			(state) => state.faxes[0] === slug,
			listedAt,
			ENDING_GONE_WITHIN_MS,
		);
		// Gone in the same change of the page that shows the fax.
		expect(entryOf(onTop, silentKey)).toBeUndefined();
		console.log(
			`listed → entry ending ${(ending.at - listedAt).toFixed(0)} ms → fax on top and entry gone together ${(onTop.at - listedAt).toFixed(0)} ms`,
		);
		expect(onTop.callsHidden).toBe(true);
	}, 60_000);

	const setHidden = (hidden: boolean) => setPageHidden(page, hidden);

	test("one stream per 25 s, a hidden tab aborts it, no inline script and no console error", async () => {
		// The first stream ends at its time limit, and the next starts at once.
		const first = streams[0] as StreamRequest;
		while (first.endedAt === null && performance.now() - first.startedAt < STREAM_LONGEST_MS + 5000)
			await Bun.sleep(50);
		await Bun.sleep(500);
		const beforeHiding = [...streams];
		console.log(
			"streams:",
			beforeHiding.map(
				(stream) =>
					`${((stream.endedAt ?? performance.now()) - stream.startedAt).toFixed(0)} ms${stream.endedAt === null ? " (open)" : ""}`,
			),
		);
		expect(new URL(first.url).searchParams.get("wait")).toBe("25");
		const streamsAborted = () => page.evaluate(() => Reflect.get(globalThis, "streamsAborted") as boolean[]);
		expect(await streamsAborted()).toEqual(beforeHiding.map(() => false));
		const ended = beforeHiding.filter((stream) => stream.endedAt !== null);
		for (const stream of ended) {
			const lasted = (stream.endedAt ?? 0) - stream.startedAt;
			expect(lasted).toBeGreaterThan(STREAM_SHORTEST_MS - 200);
			expect(lasted).toBeLessThan(STREAM_LONGEST_MS + 1500);
		}
		// One at a time: every one but the last has ended, and each next began as the one before ended.
		expect(ended.length).toBe(beforeHiding.length - 1);
		expect(ended.length).toBeGreaterThanOrEqual(1);
		for (const [index, stream] of beforeHiding.slice(1).entries())
			expect(stream.startedAt - (beforeHiding[index]?.endedAt ?? 0)).toBeLessThan(1000);

		const open = streams.at(-1) as StreamRequest;
		const hiddenAt = performance.now();
		await setHidden(true);
		while (open.endedAt === null && performance.now() - hiddenAt < 2000) await Bun.sleep(10);
		expect(open.failure).toBe("net::ERR_ABORTED");
		expect((open.endedAt ?? Number.POSITIVE_INFINITY) - hiddenAt).toBeLessThan(1000);
		expect((await streamsAborted()).at(-1)).toBe(true);
		const count = streams.length;
		await Bun.sleep(3500);
		expect(streams.length).toBe(count);
		const shownAt = performance.now();
		await setHidden(false);
		while (streams.length === count && performance.now() - shownAt < 2000) await Bun.sleep(10);
		expect(streams.length).toBe(count + 1);
		expect((streams.at(-1)?.startedAt ?? 0) - shownAt).toBeLessThan(1000);
		// The server counted as many as the browser sent.
		await Bun.sleep(200);
		expect(accessLog.filter((line) => line.msg === "request" && line.route === "/faxtest/calls").length).toBe(
			streams.length,
		);

		expect(await page.evaluate(() => Reflect.get(globalThis, "cspViolations"))).toEqual([]);
		expect(consoleErrors).toEqual([]);
		expect(browser.offsite).toEqual([]);
		expect(await page.evaluate(() => Reflect.get(globalThis, "loadedOnce"))).toBe(true);
		expect(watch.errors).toEqual([]);
	}, 60_000);

	test("on a page opened with no fax listed yet, the first call's fax also takes its entry's place at once, marked new", async () => {
		const port = await freePort();
		const base = `http://127.0.0.1:${port}`;
		const empty = await startTestServer({
			env: { PORT: String(port), CDN_BASE_URL: `${base}/cdn`, SITE_BASE_URL: base },
		});
		const emptyStore = await openServerStore(empty);
		const fresh = await browser.newPage();
		const freshWatch = new DomWatch(fresh);
		try {
			const held = fresh.waitForRequest((request) => request.url().includes("wait=30"));
			await fresh.goto(`${empty.baseUrl}/faxtest`);
			await held;
			expect(await fresh.locator("#faxes > li").count()).toBe(0);
			const feed = new CallFeed(emptyStore);
			for (const line of linesOf("clean")) feed.line(line);
			await feed.end();
			const key = feed.key ?? "";
			await freshWatch.until("the call", (state) => entryOf(state, key) !== undefined, 0, 5000);
			const slug = await listCallFax(emptyStore, key);
			const listedAt = performance.now();
			const onTop = await freshWatch.until(
				"the fax on top",
				(state) => state.faxes[0] === slug,
				listedAt,
				ENDING_GONE_WITHIN_MS,
			);
			const gone = await freshWatch.until(
				"the entry gone",
				(state) => entryOf(state, key) === undefined,
				listedAt,
				ENDING_GONE_WITHIN_MS,
			);
			console.log(
				`empty page: listed → fax on top ${(onTop.at - listedAt).toFixed(0)} ms; → entry gone ${(gone.at - listedAt).toFixed(0)} ms`,
			);
			expect(Math.abs(gone.at - onTop.at)).toBeLessThan(SHOWN_WITHIN_MS);
			expect(await fresh.locator(`#faxes > li[data-slug="${slug}"]`).getAttribute("class")).toBe("new");
		} finally {
			await freshWatch.stop();
			await fresh.context().close();
			await emptyStore.close();
			await empty.stop();
		}
	}, 60_000);
});
