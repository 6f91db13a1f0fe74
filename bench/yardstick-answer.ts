/**
 * Answers with the headers every service answer carries, so the yardsticks
 * send the same bytes, and write them as the service does: a long body after
 * the Redis round trip through the one-write body of lib/http (else each
 * yardstick would pay Bun 1.4.5's uncorked writes the service no longer pays).
 */
import { oneWriteReady, SECURITY_HEADERS } from "../lib/http/index.ts";

export const TOO_MANY = '{"message":"Too Many Attempts."}';

const FIXED_HEADERS = {
	"access-control-expose-headers":
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag",
	"access-control-allow-headers": "Accept",
	"access-control-allow-origin": "*",
	"access-control-allow-methods": "GET, HEAD, OPTIONS",
	"cache-control": "no-store, private",
	"content-type": "application/json; charset=utf-8",
	...SECURITY_HEADERS,
};

const WINDOW_SECONDS = 60;
const secondsLeft = (msLeft: number) => Math.max(1, Math.ceil(msLeft / 1000));

/** The rate-limit headers of an answer with `remaining` requests left in a window ending in `msLeft` ms. */
function limitHeaders(limit: number, remaining: number, msLeft: number) {
	return {
		"x-ratelimit-limit": String(limit),
		"x-ratelimit-remaining": String(remaining),
		"ratelimit-policy": `"default";q=${limit};w=${WINDOW_SECONDS}`,
		ratelimit: `"default";r=${remaining};t=${secondsLeft(msLeft)}`,
	};
}

/** A 200 (or another status) with the rate-limit headers of the `count`-th request of a window. */
export function answer(
	status: number,
	body: string,
	limit: number,
	count: number,
	msLeft = 60_000,
): Response {
	return new Response(oneWriteReady(body), {
		status,
		headers: { ...FIXED_HEADERS, ...limitHeaders(limit, Math.max(0, limit - count), msLeft) },
	});
}

/** The 429 of a window that ends in `msLeft` milliseconds. */
export function tooMany(limit: number, msLeft: number): Response {
	return new Response(TOO_MANY, {
		status: 429,
		headers: {
			...FIXED_HEADERS,
			...limitHeaders(limit, 0, msLeft),
			"retry-after": String(secondsLeft(msLeft)),
			"x-ratelimit-reset": String(Math.ceil((Date.now() + msLeft) / 1000)),
		},
	});
}
