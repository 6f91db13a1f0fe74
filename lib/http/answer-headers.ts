import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { FORBIDDEN_TEXT } from "./answer-schemas.ts";
import { isValidHostField } from "./host-field.ts";
import { httpDateNow } from "./http-date.ts";
import { ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import type { requestLog } from "./request-log.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

// CORS for a public, credential-free API: every answer allows any origin and
// exposes the rate-limit headers and the ETag a conditional poll sends back;
// the methods and the one simple request header are stated on every answer
// as well as on preflights.
const CORS = cors({
	// The plugin marks an answer for a wildcard origin `Vary: *`, which the
	// answer does not need (it does not vary by origin, and caches must not
	// keep it anyway); removing the field per request made every header map a
	// slow dictionary. The wildcard is a fixed header below instead.
	origin: false,
	credentials: false,
	// One string, not a list the plugin would join on every request.
	methods: "GET, HEAD, OPTIONS",
	allowedHeaders: "Accept",
	exposeHeaders:
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, RateLimit-Policy, RateLimit, ETag",
	// Preflights are answered below: the plugin's own answer echoes
	// "undefined" for a plain OPTIONS and treats every OPTIONS as one.
	preflight: false,
});
const FIXED_HEADERS = {
	"cache-control": "no-store, private",
	"access-control-allow-origin": "*",
	...SECURITY_HEADERS,
};
const PREFLIGHT_MAX_AGE = String(24 * 3600);
const BAD_HOST = messageJson(ERROR_MESSAGES.badHost);

/**
 * What every answer carries before any route runs: `Cache-Control`, CORS, the
 * security headers, a HEAD's `Date`, the 400 of a Host the request cannot
 * have (RFC 9112 3.2), the answer to a preflight, and the 403 of the default
 * Python `urllib` agent. None of the last three reaches a route, so none is
 * counted by the rate limit; each is reported to the request log here.
 */
export function answerHeaders(reportEarly: ReturnType<typeof requestLog>["reportEarly"]) {
	return new Elysia()
		.use(CORS)
		.headers(FIXED_HEADERS)
		.onRequest(({ request, set, server }) => {
			if (request.method === "HEAD") set.headers.date = httpDateNow();
			if (!isValidHostField(request.headers.get("host"))) {
				set.status = 400;
				set.headers["content-type"] = JSON_TYPE;
				reportEarly(request, set, server);
				return BAD_HOST;
			}
			// A plain OPTIONS is no preflight: like any other request, it meets the 403 below.
			if (request.method === "OPTIONS" && request.headers.get("access-control-request-method") !== null) {
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
