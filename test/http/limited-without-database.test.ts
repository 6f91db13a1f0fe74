import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { faxRecord, fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

let server: TestServer | undefined;
afterEach(() => server?.stop());

const from = (client: string) => ({ headers: { "x-forwarded-for": client } });

test("a 429 is answered without SQLite: exact while every statement on the faxes fails", async () => {
	server = await startTestServer({
		clock: fixedClock,
		env: { RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY: "127.0.0.1" },
		faxes: [faxRecord({ slug: "fax_one" })],
		sqlite: true,
	});
	for (let i = 0; i < 2; i++)
		expect((await server.request("/api/faxes", from("203.0.113.7"))).status).toBe(200);

	const other = new Database(server.databasePath);
	other.exec("DROP TABLE faxes; DROP TABLE removed_faxes");
	other.close();

	const limited = await server.request("/api/faxes", from("203.0.113.7"));
	expect(limited.status).toBe(429);
	expect(await limited.text()).toBe('{"message":"Too Many Attempts."}');
	expect([
		limited.headers.get("retry-after"),
		limited.headers.get("x-ratelimit-limit"),
		limited.headers.get("x-ratelimit-remaining"),
		limited.headers.get("x-ratelimit-reset"),
	]).toEqual(["60", "2", "0", String(NOW_SECONDS + 60)]);
	// Any answer that reads the faxes fails now, for every client, again and again.
	for (const [i, path] of ["/api/faxes", "/api/faxes/fax_one", "/api/faxes"].entries()) {
		const counted = await server.request(path, from(`198.51.100.${i + 1}`));
		expect([path, counted.status]).toEqual([path, 500]);
		await counted.text();
	}
	expect((await server.request("/api/faxes?limit=0", from("203.0.113.7"))).status).toBe(429);
});
