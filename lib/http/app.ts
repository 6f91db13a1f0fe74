import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { ROUTE_FILES } from "../../routes/manifest.ts";
import type { ClientKeyResolver } from "../rate-limit/client-address.ts";
import type { RateLimitDecision, RateLimiter } from "../rate-limit/rate-limiter.ts";
import { FAX_FILES_PATH, serveFaxFile } from "./fax-files-route.ts";
import { EMPTY_MESSAGE, JSON_TYPE } from "./json.ts";
import type { RouteServices } from "./route.ts";
import { routePathOf } from "./route-path.ts";

export interface AppOptions {
	services: RouteServices;
	limiter: RateLimiter;
	/** The rate-limit key of a request from its TCP peer and X-Forwarded-For. */
	clientKey: ClientKeyResolver;
	/** Where the PDFs and thumbnails are, served under /cdn/faxes/ for the default CDN_BASE_URL. */
	storageDir: string;
	/** Milliseconds since the epoch; injectable so tests can pin the request time. */
	clock?: () => number;
	log?: (message: string) => void;
}

const NO_STORE = "no-store, private";
const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"];
const ALLOWED_METHODS = "GET, HEAD";
const PREFLIGHT_MAX_AGE = String(24 * 3600);
const TOO_MANY = '{"message":"Too Many Attempts."}';
const METHOD_NOT_ALLOWED = '{"message":"The method is not allowed. Use GET or HEAD."}';
const FORBIDDEN_TEXT = "Forbidden: set a User-Agent of your own (see the API documentation).\n";
const SERVER_ERROR = '{"message":"Server Error."}';
const UNAVAILABLE = '{"message":"Service Unavailable."}';

type HeaderMap = Record<string, string | number>;

function rateLimitHeaders(headers: HeaderMap, decision: RateLimitDecision): void {
	headers["x-ratelimit-limit"] = decision.limit;
	headers["x-ratelimit-remaining"] = decision.remaining;
	if (!decision.allowed) {
		headers["retry-after"] = decision.retryAfter;
		headers["x-ratelimit-reset"] = decision.resetAt;
	}
}

// SQLite failing for a passing reason (disk full, an I/O error, a lock held
// too long) is no fault of the request: 503 tells clients to retry. Anything
// else (a corrupt file, a bug) is a 500.
const PASSING_STORAGE_FAILURE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM)/;

function isPassingStorageFailure(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return (
		error instanceof Error &&
		error.name === "SQLiteError" &&
		typeof code === "string" &&
		PASSING_STORAGE_FAILURE.test(code)
	);
}

/** The HTTP layer: headers every answer carries, CORS, 403/404/405, the endpoints of routes/. */
export function createApp(options: AppOptions) {
	const { services, limiter, clientKey } = options;
	const clock = options.clock ?? Date.now;
	const log = options.log ?? ((message: string) => console.error(message));

	const app = new Elysia()
		.onRequest(({ set }) => {
			set.headers["cache-control"] = NO_STORE;
		})
		.use(
			cors({
				origin: "*",
				credentials: false,
				methods: ["GET", "HEAD", "OPTIONS"],
				// Simple answers need no allow-list; preflights below echo what the browser asks for.
				allowedHeaders: "Accept",
				exposeHeaders: RATE_LIMIT_HEADERS,
				// Preflights are answered below: the plugin's own answer echoes
				// "undefined" for a plain OPTIONS and treats every OPTIONS as one.
				preflight: false,
			}),
		)
		.onRequest(({ request, set }) => {
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
				return new Response(null, { status: 204 });
			}
			if (request.headers.get("user-agent")?.startsWith("Python-urllib/")) {
				set.status = 403;
				set.headers["content-type"] = "text/plain; charset=utf-8";
				return FORBIDDEN_TEXT;
			}
		})
		.onError(({ code, error, set }) => {
			set.headers["content-type"] = JSON_TYPE;
			if (code === "NOT_FOUND") {
				set.status = 404;
				return EMPTY_MESSAGE;
			}
			log(`request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
			if (isPassingStorageFailure(error)) {
				set.status = 503;
				set.headers["retry-after"] = "5";
				return UNAVAILABLE;
			}
			set.status = 500;
			return SERVER_ERROR;
		});

	/** Counts the request, then answers it; every answer of an endpoint is counted. */
	async function counted(
		request: Request,
		server: { requestIP(request: Request): { address: string } | null } | null,
		set: { status?: number | string; headers: HeaderMap },
		answer: () => { status: number; body: string },
	): Promise<string> {
		const peer = server?.requestIP(request)?.address ?? "";
		const decision = await limiter.consume(clientKey(peer, request.headers.get("x-forwarded-for")));
		rateLimitHeaders(set.headers, decision);
		set.headers["content-type"] = JSON_TYPE;
		if (!decision.allowed) {
			set.status = 429;
			return TOO_MANY;
		}
		const { status, body } = answer();
		set.status = status;
		return body;
	}

	app.get(FAX_FILES_PATH, async ({ params, set }) => {
		const now = Math.floor(clock() / 1000);
		const answer = await serveFaxFile(params.file, now, services.store, options.storageDir);
		if (answer.status === 404) {
			set.status = 404;
			set.headers["content-type"] = JSON_TYPE;
			return EMPTY_MESSAGE;
		}
		set.headers["content-type"] = answer.type;
		return answer.file;
	});

	for (const [file, route] of Object.entries(ROUTE_FILES)) {
		const path = routePathOf(file);
		app
			.get(path, ({ request, server, set, params }) =>
				counted(request, server, set, () => {
					const url = request.url;
					const mark = url.indexOf("?");
					const search = mark === -1 ? "" : url.slice(mark + 1);
					const now = Math.floor(clock() / 1000);
					return route.serve(search, params as Record<string, string>, now, services);
				}),
			)
			.all(path, ({ request, server, set }) =>
				counted(request, server, set, () => {
					set.headers.allow = ALLOWED_METHODS;
					return { status: 405, body: METHOD_NOT_ALLOWED };
				}),
			);
	}
	return app;
}
