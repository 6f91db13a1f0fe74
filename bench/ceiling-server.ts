/**
 * The ceiling: Bun.serve with the service's Redis round trip and nothing
 * else. The body of each URL was computed once (BODIES: a JSON file of path
 * and query → status and body, taken from the service's own answers).
 */
import { answer, tooMany } from "./yardstick-answer.ts";
import { redisCounter } from "./yardstick-redis.ts";

const bodies = new Map(
	Object.entries((await Bun.file(process.env.BODIES ?? "").json()) as Record<string, [number, string]>),
);
const limit = Number(process.env.RATE_LIMIT_PER_MINUTE);
const count = redisCounter(process.env.REDIS_URL ?? "", process.env.RATE_LIMIT_PREFIX ?? "");

const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	async fetch(request) {
		const [counted, msLeft] = await count(request.headers.get("x-forwarded-for") ?? "");
		if (counted > limit) return tooMany(limit, msLeft);
		const url = request.url;
		const [status, body] = bodies.get(url.slice(url.indexOf("/", 8))) ?? [404, '{"message":""}'];
		return answer(status, body, limit, counted, msLeft);
	},
});
console.error(`listening on http://127.0.0.1:${server.port}`);
