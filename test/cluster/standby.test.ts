// An API instance on a PostgreSQL hot standby (DATABASE_URL naming the
// standby): it serves what the primary committed once replayed, and a held
// `wait` wakes when the fax is replayed there, found by the fax_commits row
// on the existing tick (LISTEN/NOTIFY is refused on a standby). Last, the
// standby's PostgreSQL is stopped under the instance and started again.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { FaxStore, openEngine } from "../../lib/db/index.ts";
import type { FaxRow } from "../../lib/fax/index.ts";
import { type PostgresServer, startPostgres, startStandby } from "../../testkit/postgres.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

let primary: PostgresServer;
let primaryUrl: string;
let standby: PostgresServer;
let store: FaxStore;
let server: TestServer;

beforeAll(async () => {
	primary = await startPostgres();
	primaryUrl = await primary.createDatabase();
	store = new FaxStore(await openEngine({ databasePath: "", databaseUrl: primaryUrl, busyTimeoutMs: 5000 }));
	standby = await startStandby(primary);
	const name = new URL(primaryUrl).pathname.slice(1);
	server = await startTestServer({ env: { DATABASE_URL: standby.url(name) } });
}, 120_000);

afterAll(async () => {
	await server?.stop();
	await store?.close();
	await standby?.stop();
	await primary?.stop();
});

const slugsOf = async (response: Response) =>
	((await response.json()) as { slug: string }[]).map((row) => row.slug);

const fax = (slug: string): FaxRow => ({
	slug,
	source: "phone",
	sender: null,
	received_at: Math.floor(Date.now() / 1000),
	page_count: 1,
	file_size: 10,
});

test("a poll on the standby sees a fax committed on the primary once replayed", async () => {
	await store.insert(fax("fax_Standby001"));
	const deadline = Date.now() + 10_000;
	let slugs: string[] = [];
	while (Date.now() < deadline && !slugs.includes("fax_Standby001")) {
		const response = await server.request("/api/faxes");
		slugs = ((await response.json()) as { slug: string }[]).map((row) => row.slug);
	}
	expect(slugs).toEqual(["fax_Standby001"]);
	expect((await server.request("/api/faxes/fax_Standby001")).status).toBe(200);
});

test("once the standby's instance has shown a fax by its slug, its next list shows it too", async () => {
	for (let i = 6; i < 16; i++) {
		const slug = `fax_Standby${String(i).padStart(3, "0")}`;
		await store.insert(fax(slug));
		while ((await server.request(`/api/faxes/${slug}`)).status !== 200);
		const listed = ((await (await server.request("/api/faxes?limit=100")).json()) as { slug: string }[]).map(
			(row) => row.slug,
		);
		expect({ slug, listed: listed.includes(slug) }).toEqual({ slug, listed: true });
	}
});

test("a wait held on the standby answers with the fax the primary commits meanwhile", async () => {
	const current = await server.request("/api/faxes");
	const etag = current.headers.get("etag") ?? "";
	const held = server.request("/api/faxes?wait=30", { headers: { "if-none-match": etag } });
	await Bun.sleep(300);
	const committed = performance.now();
	await store.insert(fax("fax_Standby002"));
	const answer = await held;
	const waitedMs = performance.now() - committed;
	expect(answer.status).toBe(200);
	expect(((await answer.json()) as { slug: string }[]).map((row) => row.slug)).toContain("fax_Standby002");
	// Far inside the 27 s at least that the wait holds without news.
	expect(waitedMs).toBeLessThan(20_000);
});

test("a write on the standby fails whole and changes nothing", async () => {
	const onStandby = new FaxStore(
		await openEngine({ databasePath: "", databaseUrl: server.env.DATABASE_URL ?? "", busyTimeoutMs: 1000 }),
	);
	await expect(onStandby.insert(fax("fax_Standby003"))).rejects.toThrow(/read-only|recovery/);
	expect(await onStandby.lookup("fax_Standby003", 0)).toEqual({ state: "missing" });
	await onStandby.close();
});

test("on the primary, each read of the commit count is sent after the requests it serves came, and shared by them", async () => {
	const watch = await store.watchCommits();
	const first = watch.settle();
	const second = watch.settle();
	// `first` was on the wire before `second` was asked: the callers since share the next read.
	expect(first).not.toBeNull();
	expect(second).not.toBe(first);
	expect(watch.settle()).toBe(second);
	await Promise.all([first, second]);
	const before = watch.count();
	// Another connection's commit, as another process's.
	const other = new FaxStore(
		await openEngine({ databasePath: "", databaseUrl: primaryUrl, busyTimeoutMs: 5000 }),
	);
	await other.insert(fax("fax_Standby004"));
	await other.close();
	await watch.settle();
	expect(watch.count()).not.toBe(before);
});

test("on the standby, the requests of one moment share one read of the commit count, which follows the primary", async () => {
	const onStandby = new FaxStore(
		await openEngine({ databasePath: "", databaseUrl: server.env.DATABASE_URL ?? "", busyTimeoutMs: 1000 }),
	);
	const watch = await onStandby.watchCommits();
	await watch.settle();
	const before = watch.count();
	const settling = watch.settle();
	expect(watch.settle()).toBe(settling);
	await store.insert(fax("fax_Standby005"));
	const deadline = Date.now() + 10_000;
	while (watch.count() === before && Date.now() < deadline) {
		await watch.settle();
		await Bun.sleep(5);
	}
	expect(watch.count()).not.toBe(before);
	await onStandby.close();
});

// 503 with Retry-After (never a crash, nor a list that may be stale given as
// current), /readyz not ready while /healthz says alive, a held `wait`
// outlives it, and everything answers again once PostgreSQL is back.
test("the standby stopped under its instance: 503 with Retry-After, not ready, alive, a held wait outlives it; back: answers again", async () => {
	const before = await server.request("/api/faxes?limit=100");
	const listed = await slugsOf(before);
	expect(listed).toContain("fax_Standby001");
	expect((await server.admin("/readyz")).status).toBe(200);
	const aborted = new AbortController();
	const held = server
		.request("/api/faxes?limit=100&wait=30", {
			headers: { "if-none-match": before.headers.get("etag") ?? "" },
			signal: aborted.signal,
		})
		.catch(() => null);
	await Bun.sleep(200);

	await standby.halt();
	// The held request's tick meets the outage every 10 ms meanwhile.
	await Bun.sleep(300);
	for (const path of ["/api/faxes", "/api/faxes/fax_Outage0001", "/api/faxes/fax_Outage0002"]) {
		const response = await server.request(path);
		expect({ path, status: response.status, retryAfter: response.headers.get("retry-after") }).toEqual({
			path,
			status: 503,
			retryAfter: "5",
		});
		expect(await response.json()).toEqual({ message: "Service Unavailable." });
	}
	const readiness = await server.admin("/readyz");
	expect(readiness.status).toBe(503);
	expect(((await readiness.json()) as { status: string }).status).toBe("unready");
	expect((await server.admin("/healthz")).status).toBe(200);

	await standby.resume();
	await store.insert(fax("fax_Outage0002"));
	const deadline = Date.now() + 10_000;
	while ((await server.admin("/readyz")).status !== 200 && Date.now() < deadline) await Bun.sleep(100);
	expect((await server.admin("/readyz")).status).toBe(200);
	let after: string[] = [];
	while (!after.includes("fax_Outage0002") && Date.now() < deadline)
		after = await slugsOf(await server.request("/api/faxes?limit=100"));
	expect(after).toEqual(["fax_Outage0002", ...listed]);
	expect((await server.request("/api/faxes/fax_Outage0002")).status).toBe(200);
	aborted.abort();
	await held;
}, 30_000);
