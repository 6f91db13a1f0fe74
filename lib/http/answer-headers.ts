import { Elysia } from "elysia";
import { FORBIDDEN_TEXT } from "./answer-schemas.ts";
import type { requestLog } from "./request-log.ts";

// CORS for a public, credential-free API: every answer allows any origin and
// exposes the rate-limit headers; the methods and the one simple request header
// are stated on every answer as well as on preflights.
const EVERY_ANSWER = {
	"access-control-allow-origin": "*",
	"access-control-allow-methods": "GET, HEAD, OPTIONS",
	"access-control-allow-headers": "Accept",
	"access-control-expose-headers":
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit",
	"cache-control": "no-store, private",
};
const PREFLIGHT_MAX_AGE = String(24 * 3600);

/**
 * What every answer carries before any route runs: `Cache-Control`, CORS, the
 * answer to a preflight, and the 403 of the default Python `urllib` agent.
 * Neither of the last two reaches a route, so neither is counted by the rate
 * limit; both are reported to the request log here.
 *
 * The headers are one constant set that Elysia copies into each answer, rather
 * than a CORS plugin's hook recomputing them on every request (and a second
 * hook deleting the `Vary: *` it added).
 */
export function answerHeaders(reportEarly: ReturnType<typeof requestLog>["reportEarly"]) {
	return new Elysia().headers(EVERY_ANSWER).onRequest(({ request, set, server }) => {
		if (request.method === "OPTIONS") {
			const method = request.headers.get("access-control-request-method");
			if (method === null) return;
			set.status = 204;
			const asked = request.headers.get("access-control-request-headers");
			if (asked) set.headers["access-control-allow-headers"] = asked;
			set.headers["access-control-max-age"] = PREFLIGHT_MAX_AGE;
			reportEarly(request, set, server);
			return new Response(null, { status: 204 });
		}
		if (request.headers.get("user-agent")?.startsWith("Python-urllib/")) {
			set.status = 403;
			set.headers["content-type"] = "text/plain; charset=utf-8";
			reportEarly(request, set, server);
			return FORBIDDEN_TEXT;
		}
	});
}
