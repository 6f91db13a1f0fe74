import fc from "fast-check";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";
import type { Expected } from "./answers.ts";
import { CATALOGUE } from "./catalogue.ts";
import { expectedFaxAnswer, expectedListAnswer } from "./list-oracle.ts";
import { queryString } from "./queries.ts";

/**
 * Whole requests: paths, methods, headers and their combinations, each with
 * the answer DECISIONS.md gives it. Only requests Bun hands to the
 * application; malformed ones are in malformedRequest.
 */

/** Where a path leads, decided from how the generator built it. */
type Destination =
	| { to: "list" }
	| { to: "fax"; slug: string }
	| { to: "page"; slug: string }
	| { to: "file" }
	| { to: "nowhere" }
	/**
	 * A path that Bun 1.4.5 matches to one of its routes as sent, while
	 * request.url, by which the app routes what Bun does not, resolves it:
	 * GET and HEAD take `raw`, every other method `resolved`.
	 */
	| { to: "raw-route"; raw: Destination; resolved: Destination };

const SLUG_CHARACTERS = /^[A-Za-z0-9]$/;

/** A slug with some of its characters percent-encoded: an equivalent spelling of the same path (RFC 3986 6.2.2.2). */
const slugSpelling = (slug: string) =>
	fc
		.array(fc.boolean(), { minLength: slug.length, maxLength: slug.length })
		.map((encodeAt) =>
			[...slug]
				.map((character, index) =>
					encodeAt[index] && (SLUG_CHARACTERS.test(character) || character === "_")
						? `%${character.charCodeAt(0).toString(16).toUpperCase()}`
						: character,
				)
				.join(""),
		);

const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,12}$/);

const slugTarget: fc.Arbitrary<[string, Destination]> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc
			.constantFrom(...CATALOGUE.map((fax) => fax.slug))
			.chain((slug) =>
				slugSpelling(slug).map((spelled): [string, Destination] => [spelled, { to: "fax", slug }]),
			),
	},
	{
		weight: 2,
		arbitrary: fc
			.stringMatching(/^fax_[A-Za-z0-9]{1,40}$/)
			.map((slug): [string, Destination] => [slug, { to: "fax", slug }]),
	},
	{
		weight: 2,
		arbitrary: fc
			.oneof(
				segment,
				fc.constantFrom(
					"fax_",
					"fax_a%2Fb",
					"fax_%C0%AF",
					"fax_é",
					"%",
					"%ZZ",
					"fax_Cat001%00",
					"FAX_Cat001",
				),
				fc.stringMatching(/^fax_[A-Za-z0-9]{1,20}[^A-Za-z0-9/?#%\s]$/),
			)
			// An invalid slug is a 404 of the endpoint whatever it decodes to;
			// a dot segment is no slug but a step in the path (DOT_SEGMENT_TARGETS).
			.filter((text) => !/^fax_[A-Za-z0-9]+$/.test(decodeOr(text)) && !isDotSegment(text))
			.map((text): [string, Destination] => [text, invalidSlug(text)]),
	},
);

/**
 * An invalid slug is the fax route's 404; a last backslash, which request.url
 * reads as `/`, makes a path with a trailing slash for the methods Bun does
 * not route itself: no route.
 */
function invalidSlug(text: string): Destination {
	const missing: Destination = { to: "fax", slug: "" };
	return text.endsWith("\\") ? { to: "raw-route", raw: missing, resolved: { to: "nowhere" } } : missing;
}

function isDotSegment(text: string): boolean {
	return /^(\.|%2e){1,2}$/i.test(text);
}

/** The fax route's 404 for GET and HEAD, where Bun took a dot segment for the slug. */
const asSlug = (resolved: Destination): Destination => ({
	to: "raw-route",
	raw: { to: "fax", slug: "" },
	resolved,
});
/** The page's 404, where Bun took a dot segment for the slug. */
const asPageSlug = (resolved: Destination): Destination => ({
	to: "raw-route",
	raw: { to: "page", slug: "" },
	resolved,
});

/**
 * Paths whose dot segments (`.`, `..`, and `%2e` for a dot) and backslashes
 * resolve, as in request.url, to another path (RFC 3986 5.2.4; the URL
 * parser reads `\` as `/`), with where that path leads: `/api/faxes/` is the
 * fax route with an empty slug, any other trailing `/` no route. Bun 1.4.5 matches its routes on the path as sent
 * (docs/decisions.md, "Known limitations"), so a last segment of dots after
 * `/api/faxes/` or `/faxtest/` is a slug to GET and HEAD.
 */
const DOT_SEGMENT_TARGETS: [string, Destination][] = [
	["/api/faxes/.", asSlug({ to: "fax", slug: "" })],
	["/api/faxes/%2E", asSlug({ to: "fax", slug: "" })],
	["/api/faxes/a\\..", asSlug({ to: "fax", slug: "" })],
	["/api/faxes/..", asSlug({ to: "nowhere" })],
	["/api/faxes/%2e%2E", asSlug({ to: "nowhere" })],
	["/api/faxes/.%2e", asSlug({ to: "nowhere" })],
	["/faxtest/.", asPageSlug({ to: "nowhere" })],
	["/faxtest/..", asPageSlug({ to: "nowhere" })],
	["/api/faxes/fax_Cat001/..", { to: "fax", slug: "" }],
	["/api/faxes/fax_Cat001/../..", { to: "nowhere" }],
	["/api/faxes/fax_Cat001/%2e%2e/../faxes", { to: "list" }],
	["/api\\faxes", { to: "list" }],
	["/api/x/../faxes/fax_Cat001", { to: "fax", slug: "fax_Cat001" }],
	["/faxtest/fax_Cat001/../fax_Cat002", { to: "page", slug: "fax_Cat002" }],
];

function decodeOr(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

const UNKNOWN_PATHS = [
	"/",
	"/api",
	"/api/",
	"/api/faxes/fax_Cat001/",
	"/api/faxes/fax_none/",
	"/docs/",
	"/openapi.json/",
	"/faxtest/fax_Cat001/",
	"/API/FAXES",
	"/api/Faxes",
	"/api/fax",
	"/api/faxess",
	"/api/faxes/fax_Cat001/pdf",
	"/api/faxes/x/y",
	"//api/faxes",
	"/api//faxes",
	"/cdn",
	"/cdn/faxes",
	"/healthz",
	"/readyz",
	"/metrics",
	"/favicon.ico",
	"/api/faxes.json",
	"/api/faxes%2F",
	"/api%2Ffaxes",
	"/%",
	"/%C0%AF",
	"/api/faxes;jsessionid=1",
];

const pathTarget: fc.Arbitrary<[string, Destination]> = fc.oneof(
	{ weight: 4, arbitrary: fc.constant<[string, Destination]>(["/api/faxes", { to: "list" }]) },
	{ weight: 1, arbitrary: fc.constant<[string, Destination]>(["/api/faxes/", { to: "fax", slug: "" }]) },
	{ weight: 4, arbitrary: slugTarget.map(([slug, to]): [string, Destination] => [`/api/faxes/${slug}`, to]) },
	{
		weight: 1,
		arbitrary: fc
			.constantFrom(
				"/x/../api/faxes",
				"/api/./faxes",
				"/./api/faxes",
				"/api/faxes/%2e%2e/faxes",
				"/a/b/../../api/faxes",
			)
			.map((path): [string, Destination] => [path, { to: "list" }]),
	},
	{ weight: 1, arbitrary: fc.constantFrom(...DOT_SEGMENT_TARGETS) },
	{
		weight: 1,
		arbitrary: fc
			.oneof(
				fc.constantFrom(...CATALOGUE.map((fax) => fax.slug)).map((slug) => `${slug}.pdf`),
				fc.constantFrom(...CATALOGUE.map((fax) => fax.slug)).map((slug) => `${slug}-thumb.jpg`),
				segment,
				fc.constantFrom("..%2F..%2Fetc%2Fpasswd", "%2e%2e", "fax_x.pdf%00", "fax_x.PDF"),
			)
			.map((file): [string, Destination] => [`/cdn/faxes/${file}`, { to: "file" }]),
	},
	{
		weight: 2,
		arbitrary: slugTarget.map(([slug, to]): [string, Destination] => [
			`/faxtest/${slug}`,
			{ to: "page", slug: to.to === "fax" ? to.slug : "" },
		]),
	},
	{
		weight: 2,
		arbitrary: fc
			.constantFrom(...UNKNOWN_PATHS)
			.map((path): [string, Destination] => [path, { to: "nowhere" }]),
	},
	{
		weight: 2,
		arbitrary: fc
			.array(segment, { minLength: 1, maxLength: 5 })
			.filter(
				([first]) => !["api", "cdn", "docs", "faxtest", "openapi.json", ".", ".."].includes(first ?? ""),
			)
			.filter((segments) => !segments.includes(".."))
			.map((segments): [string, Destination] => [`/${segments.join("/")}`, { to: "nowhere" }]),
	},
);

/** Methods Bun parses and hands to the application. */
const METHOD = fc.constantFrom(
	"GET",
	"GET",
	"GET",
	"HEAD",
	"HEAD",
	"POST",
	"PUT",
	"PATCH",
	"DELETE",
	"OPTIONS",
	"TRACE",
	"PROPFIND",
	"MKCOL",
	"COPY",
	"MOVE",
	"LOCK",
	"UNLOCK",
	"SEARCH",
	"REPORT",
	"PURGE",
	"M-SEARCH",
	"NOTIFY",
	"SUBSCRIBE",
	"LINK",
	"UNLINK",
	"QUERY",
);

const USER_AGENT = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.constantFrom(
			"testfax-fuzz/1.0",
			"curl/8.5.0",
			"Mozilla/5.0 (X11; Linux x86_64)",
			"",
			"python-requests/2.32",
		),
	},
	{ weight: 2, arbitrary: fc.constantFrom("Python-urllib/3.12", "Python-urllib/2.7", "Python-urllib/") },
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			"python-urllib/3.12",
			"Python-urllib",
			" Python-urllib/3.12",
			"X Python-urllib/3.12",
		),
	},
	{ weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/) },
);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/;
const FORBIDDEN_EXTRA = new Set([
	"host",
	"user-agent",
	"connection",
	"content-length",
	"transfer-encoding",
	"expect",
	"upgrade",
	"access-control-request-method",
	"te",
	"trailer",
	"http2-settings",
	"keep-alive",
	"proxy-connection",
]);

const commonHeader: fc.Arbitrary<[string, string]> = fc.tuple(
	fc.constantFrom(
		"Accept",
		"Accept-Encoding",
		"Accept-Language",
		"Origin",
		"Referer",
		"Cookie",
		"Authorization",
		"Range",
		"If-None-Match",
		"If-Modified-Since",
		"Cache-Control",
		"Pragma",
		"X-Forwarded-For",
		"X-Real-IP",
		"Forwarded",
		"X-Forwarded-Proto",
		"X-HTTP-Method-Override",
		"Content-Type",
		"Access-Control-Request-Headers",
		"DNT",
	),
	fc.oneof(
		fc.constantFrom(
			"*/*",
			"text/html",
			"application/xml;q=0.9",
			"gzip, br, zstd",
			"null",
			"https://evil.example",
			"bytes=0-10",
			"bytes=-5",
			'"abc"',
			"Thu, 01 Jan 1970 00:00:00 GMT",
			"no-cache",
			"1.2.3.4, 5.6.7.8",
			"for=1.2.3.4",
			"DELETE",
			"Basic Zm9vOmJhcg==",
			"a=%ZZ; b",
		),
		fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,60}[\x21-\x7e])?$/),
	),
);

const unknownHeader: fc.Arbitrary<[string, string]> = fc.tuple(
	fc.stringMatching(TOKEN).filter((name) => !FORBIDDEN_EXTRA.has(name.toLowerCase())),
	fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,60}[\x21-\x7e])?$/),
);

/**
 * Headers that must not change an answer, common ones with odd values and
 * unknown ones, but for an `If-None-Match` of `*` (see `conditionalAnswer`).
 */
const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
	{ weight: 1, arbitrary: fc.constant<[string, string]>(["If-None-Match", "*"]) },
	{ weight: 10, arbitrary: commonHeader },
	{ weight: 10, arbitrary: unknownHeader },
);

export interface FuzzRequest {
	method: string;
	target: string;
	headers: [string, string][];
	/** Bytes sent after the head, announced by Content-Length. */
	body: string;
	expected: Expected;
}

/** The fax's page: what the API says of the fax, as HTML; other methods find no page. */
function pageAnswer(method: string, slug: string): Expected {
	if (method !== "GET" && method !== "HEAD") return { kind: "unknown-path" };
	const api = slug === "" ? ({ kind: "missing" } as const) : expectedFaxAnswer(slug, NOW_SECONDS);
	if (api.kind === "fax") return { kind: "page", status: 200, fax: api.fax };
	return { kind: "page", status: api.kind === "gone" ? 410 : 404 };
}

/** What the contract gives a request that reached the application. */
function expectedAnswer(
	method: string,
	destination: Destination,
	search: string,
	userAgent: string,
	preflight: boolean,
): Expected {
	if (destination.to === "raw-route") {
		const taken = method === "GET" || method === "HEAD" ? destination.raw : destination.resolved;
		return expectedAnswer(method, taken, search, userAgent, preflight);
	}
	if (method === "OPTIONS" && preflight) return { kind: "preflight" };
	// Header values lose their surrounding white space (RFC 9110 5.5).
	if (userAgent.trim().startsWith("Python-urllib/")) return { kind: "forbidden" };
	if (destination.to === "nowhere" || destination.to === "file") return { kind: "unknown-path" };
	if (destination.to === "page") return pageAnswer(method, destination.slug);
	if (method !== "GET" && method !== "HEAD") return { kind: "method" };
	if (destination.to === "list") return expectedListAnswer(search, NOW_SECONDS);
	return destination.slug === "" ? { kind: "missing" } : expectedFaxAnswer(destination.slug, NOW_SECONDS);
}

/**
 * An `If-None-Match` of `*` matches any current representation (RFC 9110
 * section 13.1.2), so a list or a fax is then a 304. Several fields are one
 * comma-separated list, which is no longer `*` alone.
 */
function conditionalAnswer(expected: Expected, headers: [string, string][]): Expected {
	const current = expected.kind === "list" || expected.kind === "fax";
	// A fax's page is kept with its ETag too; a 404 or 410 page has no current representation.
	const currentPage = expected.kind === "page" && expected.status === 200;
	if (!current && !currentPage) return expected;
	const noneMatch = headers
		.filter(([name]) => name.toLowerCase() === "if-none-match")
		.map(([, value]) => value);
	if (noneMatch.length === 0 || noneMatch.join(", ").trim() !== "*") return expected;
	return current ? { kind: "not-modified" } : { kind: "page-not-modified" };
}

export const request: fc.Arbitrary<FuzzRequest> = fc
	.record({
		method: METHOD,
		path: pathTarget,
		query: fc.option(queryString, { freq: 3, nil: undefined }),
		// Absolute-form targets (RFC 9112 3.2.2): any scheme Bun takes, any host, none.
		absolute: fc.constantFrom("", "", "", "http://api.test.example", "https://a", "HTTP://a:80", "http://"),
		userAgent: USER_AGENT,
		preflight: fc.boolean(),
		extra: fc.array(extraHeader, { maxLength: 6 }),
		body: fc.option(fc.string({ maxLength: 40 }), { freq: 5, nil: undefined }),
	})
	.filter(({ query }) => (query ?? "").length < 12_000)
	.map(({ method, path: [path, destination], query, absolute, userAgent, preflight, extra, body }) => {
		const search = query ?? "";
		const target = `${absolute}${path}${query === undefined ? "" : `?${search}`}`;
		const headers: [string, string][] = [["User-Agent", userAgent], ...extra];
		if (preflight) headers.push(["Access-Control-Request-Method", "GET"]);
		if (body !== undefined) headers.push(["Content-Length", String(Buffer.byteLength(body))]);
		return {
			method,
			target,
			headers,
			body: body ?? "",
			expected: conditionalAnswer(expectedAnswer(method, destination, search, userAgent, preflight), headers),
		};
	});
