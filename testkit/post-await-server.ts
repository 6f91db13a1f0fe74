/**
 * A bare Bun.serve that answers a 31 KB body after an await, with as many
 * headers as an answer of the API: plainly (as a string), or through the
 * service's one-write body when ONE_WRITE=1. test/http/one-write.test.ts
 * counts the send() calls of each.
 */
import { oneWriteBody } from "../lib/http/index.ts";

const BODY = `[${Array.from({ length: 100 }, (_, i) => JSON.stringify({ n: i, text: "x".repeat(290) })).join(",")}]`;
const HEADERS = {
	"content-type": "application/json; charset=utf-8",
	"cache-control": "no-store, private",
	"access-control-allow-origin": "*",
	"access-control-allow-methods": "GET, HEAD, OPTIONS",
	"access-control-allow-headers": "Accept",
	"access-control-expose-headers": "X-RateLimit-Limit, X-RateLimit-Remaining",
	"x-request-id": "00000000-0000-0000-0000-000000000000",
	"x-ratelimit-limit": "60",
	"x-ratelimit-remaining": "59",
};
const oneWrite = process.env.ONE_WRITE === "1";

const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	async fetch() {
		await Bun.sleep(0);
		return new Response(oneWrite ? oneWriteBody(BODY) : BODY, { headers: HEADERS });
	},
});
console.error(`listening on http://127.0.0.1:${server.port}`);
