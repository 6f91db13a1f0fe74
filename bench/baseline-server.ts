/**
 * The floor the service is measured against: a bare Bun.serve answering the same
 * JSON bytes and headers from memory, with no routing, validation, store or limiter.
 */
import { readFileSync } from "node:fs";

const body = readFileSync(process.env.BASELINE_BODY ?? "", "utf8");
const headers = {
	"content-type": "application/json; charset=utf-8",
	"cache-control": "no-store, private",
	"access-control-allow-origin": "*",
	"x-ratelimit-limit": "60",
	"x-ratelimit-remaining": "59",
};
const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	fetch: () => new Response(body, { headers }),
});
console.error(`listening on http://127.0.0.1:${server.port}`);
