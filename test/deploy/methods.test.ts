/**
 * deploy/nginx/methods.conf with the real nginx in front of the real server:
 * the methods Bun closes the connection on (test/http/bun-answers.test.ts)
 * get the API's 405 from nginx; the ones Bun knows still reach the API.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Nginx, startNginx } from "../../testkit/nginx.ts";
import { rawExchange } from "../../testkit/raw-http.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const dir = makeTempDir();
let server: Bun.Subprocess;
let nginx: Nginx;

beforeAll(async () => {
	const started = await startServerProcess({
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		SEED_DEMO: "0",
		TRUST_PROXY: "127.0.0.1",
	});
	server = started.child;
	nginx = await startNginx(join(dir, "nginx"), [Number(new URL(started.url).port)]);
});

afterAll(async () => {
	await nginx?.stop();
	server?.kill("SIGTERM");
	await server?.exited;
	rmSync(dir, { recursive: true, force: true });
});

function send(requestLine: string, headers = "Host: api.test\r\n") {
	return rawExchange(
		nginx.port,
		`${requestLine} HTTP/1.1\r\n${headers}User-Agent: t\r\nConnection: close\r\n\r\n`,
	);
}

const EVERY_ANSWER = {
	"cache-control": "no-store, private",
	"access-control-allow-origin": "*",
	"content-type": "application/json; charset=utf-8",
	"x-content-type-options": "nosniff",
};

test.each([["FOO /api/faxes"], ["get /api/faxes?limit=1"], ["BREW /api/faxes/fax_x"], ["TRACE /api/faxes"]])(
	"%s: nginx answers the API's 405 with its headers",
	async (line) => {
		const answer = await send(line);
		expect(answer.status).toBe(405);
		expect(answer.headers).toMatchObject({ ...EVERY_ANSWER, allow: "GET, HEAD" });
		expect(JSON.parse(answer.body)).toEqual({ message: "The method is not allowed. Use GET or HEAD." });
		expect(answer.headers["x-upstream"]).toBeUndefined();
	},
);

test("FOO on a path that is no endpoint: the API's 404, no Allow", async () => {
	const answer = await send("FOO /docs");
	expect([answer.status, answer.body, answer.headers.allow]).toEqual([404, '{"message":""}', undefined]);
	expect(answer.headers).toMatchObject(EVERY_ANSWER);
});

test("a method Bun knows is the API's own 405, counted by the rate limit", async () => {
	const answer = await send("POST /api/faxes");
	expect(answer.status).toBe(405);
	expect(answer.headers["x-upstream"]).toBeString();
	expect(answer.headers["x-ratelimit-remaining"]).toBe("59");
});

test("a bad request of a method passed on stays a 400, in JSON", async () => {
	const answer = await send("GET /api/faxes", "Host: a.test\r\nHost: b.test\r\n");
	expect([answer.status, answer.body, answer.headers.allow]).toEqual([
		400,
		'{"message":"Bad request."}',
		undefined,
	]);
	expect(answer.headers).toMatchObject(EVERY_ANSWER);
});

test("GET passes through", async () => {
	const answer = await send("GET /api/faxes");
	expect([answer.status, answer.body]).toEqual([200, "[]"]);
});
