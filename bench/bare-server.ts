/**
 * The yardstick of the embedded service (no Redis): a bare Bun.serve answering
 * the same bytes and headers from memory (BODY: a file), with no routing,
 * validation, store or limiter.
 */
import { answer } from "./yardstick-answer.ts";

const body = await Bun.file(process.env.BODY ?? "").text();
const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	fetch: () => answer(200, body, 60, 1),
});
console.error(`listening on http://127.0.0.1:${server.port}`);
