import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { FORBIDDEN_TEXT } from "./answer-schemas.ts";
import type { requestLog } from "./request-log.ts";

const NO_STORE = "no-store, private";
const EXPOSED_HEADERS = [
	"X-RateLimit-Limit",
	"X-RateLimit-Remaining",
	"X-RateLimit-Reset",
	"Retry-After",
	"RateLimit-Policy",
	"RateLimit",
];
const PREFLIGHT_MAX_AGE = String(24 * 3600);

/**
 * What every answer carries before any route runs: `Cache-Control`, CORS, the
 * answer to a preflight, and the 403 of the default Python `urllib` agent.
 * Neither of the last two reaches a route, so neither is counted by the rate
 * limit; both are reported to the request log here.
 */
export function answerHeaders(reportEarly: ReturnType<typeof requestLog>["reportEarly"]) {
	return new Elysia()
		.use(
			cors({
				origin: "*",
				credentials: false,
				methods: ["GET", "HEAD", "OPTIONS"],
				// Simple answers need no allow-list; preflights below echo what the browser asks for.
				allowedHeaders: "Accept",
				exposeHeaders: EXPOSED_HEADERS,
				// Preflights are answered below: the plugin's own answer echoes
				// "undefined" for a plain OPTIONS and treats every OPTIONS as one.
				preflight: false,
			}),
		)
		.onRequest(({ request, set, server }) => {
			set.headers["cache-control"] = NO_STORE;
			// The plugin marks every answer `Vary: *` for a wildcard origin; the
			// answer does not vary by origin, and caches must not keep it anyway.
			delete set.headers.vary;
			const method = request.headers.get("access-control-request-method");
			if (request.method === "OPTIONS" && method !== null) {
				set.status = 204;
				set.headers["access-control-allow-methods"] = "GET, HEAD, OPTIONS";
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
