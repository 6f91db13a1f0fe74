import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { rawExchange } from "../../testkit/raw-http.ts";

// The upstream behaviour that lib/http/http-date.ts and lib/http/file-adapter.ts
// work around (docs/decisions.md, "Workarounds"). Each test fails once its
// upstream is fixed, and the workaround can go.

const dir = mkdtempSync(join(tmpdir(), "testfax-guard-"));
const FILE = join(dir, "received.pdf");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => Bun.write(FILE, "%PDF-1.4 guard\n"));

function exchange(port: number, method: string, path: string, extra = "") {
	return rawExchange(
		port,
		`${method} ${path} HTTP/1.1\r\nHost: guard.test\r\n${extra}Connection: close\r\n\r\n`,
	);
}

test("Bun 1.4.5 sends no Date on a HEAD answer, though it does on the GET (oven-sh/bun#27512)", async () => {
	using server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("{}") });
	const get = await exchange(server.port ?? 0, "GET", "/");
	const head = await exchange(server.port ?? 0, "HEAD", "/");
	expect([get.status, head.status]).toEqual([200, 200]);
	expect(get.headers.date).toBeString();
	expect(head.headers.date).toBeUndefined();
});

test("Bun 1.4.5 names a file body `filename=…` with no disposition type unless the app sets the field (oven-sh/bun#33655)", async () => {
	using server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(Bun.file(FILE)) });
	expect((await exchange(server.port ?? 0, "GET", "/")).headers["content-disposition"]).toBe(
		'filename="received.pdf"',
	);
});

test("Elysia 1.4.30 answers a file body's Range itself: Content-Range on a 200, a 206 the app never sees, after a failed If-Range and for two ranges", async () => {
	let seen: number | string | undefined;
	const app = new Elysia()
		.onAfterResponse(({ set }) => {
			seen = set.status;
		})
		.get("/file", () => Bun.file(FILE))
		.listen({ port: 0, hostname: "127.0.0.1" });
	const port = app.server?.port ?? 0;
	try {
		expect((await exchange(port, "GET", "/file")).headers["content-range"]).toBe("bytes 0-14/15");
		const ranged = await exchange(port, "GET", "/file", 'Range: bytes=0-1\r\nIf-Range: "another"\r\n');
		expect([ranged.status, ranged.body, seen]).toEqual([206, "%P", 200]);
		expect((await exchange(port, "GET", "/file", "Range: bytes=0-1,4-5\r\n")).status).toBe(206);
	} finally {
		await app.stop(true);
	}
});
