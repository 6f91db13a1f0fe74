import { Type } from "@sinclair/typebox";

/**
 * The rate-limit header fields of the IETF HTTPAPI draft
 * (draft-ietf-httpapi-ratelimit-headers-11): one quota policy, named here,
 * advertised by `RateLimit-Policy` and reported by `RateLimit`.
 */
const POLICY = '"default"';

/** `RateLimit-Policy`: the quota (`q`) of each window of `w` seconds. */
export function rateLimitPolicy(limit: number, windowSeconds: number): string {
	return `${POLICY};q=${limit};w=${windowSeconds}`;
}

/** `RateLimit`: the requests remaining (`r`) and the seconds until the window ends (`t`). */
export function rateLimitField(remaining: number, resetSeconds: number): string {
	return `${POLICY};r=${remaining};t=${resetSeconds}`;
}

/** The headers of every answer an endpoint gives after counting the request, 429 included. */
export const RATE_LIMIT_HEADERS = {
	"X-RateLimit-Limit": Type.Integer({
		minimum: 1,
		description: "Requests allowed in each window of a minute: 60.",
		examples: [60],
	}),
	"X-RateLimit-Remaining": Type.Integer({
		minimum: 0,
		description: "Requests left in the current window, after this one.",
		examples: [59],
	}),
	"RateLimit-Policy": Type.String({
		pattern: '^"default";q=\\d+;w=\\d+$',
		description:
			"The quota policy, as the IETF draft `draft-ietf-httpapi-ratelimit-headers-11` defines it: " +
			"`q` requests in each window of `w` seconds, counted per IPv4 address or IPv6 /64 block.",
		examples: ['"default";q=60;w=60'],
	}),
	RateLimit: Type.String({
		pattern: '^"default";r=\\d+;t=\\d+$',
		description:
			"The current service limit, as the same draft defines it: `r` requests remaining and `t` seconds " +
			"until the window ends and the count starts again.",
		examples: ['"default";r=59;t=60'],
	}),
};

/** The headers a 429 adds. */
export const THROTTLED_HEADERS = {
	"Retry-After": Type.Integer({
		minimum: 1,
		description: "Seconds to wait before the next request.",
		examples: [42],
	}),
	"X-RateLimit-Reset": Type.Integer({
		minimum: 0,
		description: "When requests are allowed again, as a Unix timestamp (seconds).",
		examples: [1795781400],
	}),
};
