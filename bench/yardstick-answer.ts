/** Answers with the headers every service answer carries, so the yardsticks send the same bytes. */

export const TOO_MANY = '{"message":"Too Many Attempts."}';

const FIXED_HEADERS = {
	"access-control-expose-headers": "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After",
	"access-control-allow-headers": "Accept",
	"access-control-allow-origin": "*",
	"access-control-allow-methods": "GET, HEAD, OPTIONS",
	"cache-control": "no-store, private",
	"content-type": "application/json; charset=utf-8",
};

/** A 200 (or another status) with the rate-limit headers of the `count`-th request of a window. */
export function answer(status: number, body: string, limit: number, count: number): Response {
	return new Response(body, {
		status,
		headers: {
			...FIXED_HEADERS,
			"x-ratelimit-limit": String(limit),
			"x-ratelimit-remaining": String(Math.max(0, limit - count)),
		},
	});
}

/** The 429 of a window that ends in `msLeft` milliseconds. */
export function tooMany(limit: number, msLeft: number): Response {
	return new Response(TOO_MANY, {
		status: 429,
		headers: {
			...FIXED_HEADERS,
			"x-ratelimit-limit": String(limit),
			"x-ratelimit-remaining": "0",
			"retry-after": String(Math.max(1, Math.ceil(msLeft / 1000))),
			"x-ratelimit-reset": String(Math.ceil((Date.now() + msLeft) / 1000)),
		},
	});
}
