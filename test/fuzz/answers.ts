import { type RawAnswer, rawExchange } from "../../testkit/raw-http.ts";
import { type CatalogueFax, publicFax, SECRETS } from "./catalogue.ts";
import { LONG_RUN } from "./runs.ts";

/** What the contract says one request must get, independent of how the service decides it. */
export type Expected =
	| { kind: "list"; faxes: CatalogueFax[] }
	| { kind: "fax"; fax: CatalogueFax }
	/** A 404 of an endpoint: counted, with the rate-limit headers. */
	| { kind: "missing" }
	| { kind: "gone" }
	| { kind: "invalid"; errors: Record<string, string[]> }
	| { kind: "method" }
	/** A 404 of a path that is no endpoint: not counted. */
	| { kind: "unknown-path" }
	| { kind: "preflight" }
	| { kind: "forbidden" }
	/** The fax's HTML page behind `view_url`: 200, 404 or 410, not counted. */
	| { kind: "page"; status: 200 | 404 | 410; fax?: CatalogueFax }
	/** The window is used up: 429, counted. */
	| { kind: "limited"; resetAt: number }
	/** A list or a fax the client has (`If-None-Match`): 304 with no body, counted. */
	| { kind: "not-modified" }
	/** A fax's page the client has (`If-None-Match`): 304 with no body, not counted. */
	| { kind: "page-not-modified" };

const STATUS: Record<Expected["kind"], number> = {
	list: 200,
	fax: 200,
	missing: 404,
	gone: 410,
	invalid: 422,
	method: 405,
	"unknown-path": 404,
	preflight: 204,
	forbidden: 403,
	limited: 429,
	page: 200,
	"not-modified": 304,
	"page-not-modified": 304,
};

const statusOf = (expected: Expected) => (expected.kind === "page" ? expected.status : STATUS[expected.kind]);

const COUNTED = new Set<Expected["kind"]>([
	"list",
	"fax",
	"missing",
	"gone",
	"invalid",
	"method",
	"limited",
	"not-modified",
]);

/** Whether the rate limit counts an answer of this kind. */
export function isCounted(expected: Expected): boolean {
	return COUNTED.has(expected.kind);
}
const JSON_TYPE = "application/json; charset=utf-8";
const EXPOSED = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "ETag"];

/** The body a JSON answer must have; undefined where only its shape is fixed. */
function expectedBody(expected: Expected): unknown {
	switch (expected.kind) {
		case "list":
			return expected.faxes.map(publicFax);
		case "fax":
			return publicFax(expected.fax);
		case "missing":
		case "gone":
		case "unknown-path":
			return { message: "" };
		case "limited":
			return { message: "Too Many Attempts." };
		case "invalid": {
			const first = Object.values(expected.errors)[0]?.[0];
			return { message: first, errors: expected.errors };
		}
		default:
			return undefined;
	}
}

function headerProblems(answer: RawAnswer, expected: Expected): string[] {
	const { headers } = answer;
	const problems: string[] = [];
	const want = (name: string, value: string | undefined) => {
		if (headers[name] !== value) problems.push(`${name}: ${headers[name]}, not ${value}`);
	};
	want("cache-control", "no-store, private");
	want("access-control-allow-origin", "*");
	const exposed = (headers["access-control-expose-headers"] ?? "").split(",").map((name) => name.trim());
	if (!EXPOSED.every((name) => exposed.includes(name))) {
		problems.push(`access-control-expose-headers: ${headers["access-control-expose-headers"]}`);
	}
	const counted = COUNTED.has(expected.kind);
	for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining"]) {
		if (counted && !/^[0-9]+$/.test(headers[name] ?? "")) problems.push(`${name}: ${headers[name]}`);
		if (!counted && name in headers) problems.push(`${name} on an answer that is not counted`);
	}
	if (expected.kind === "method") want("allow", "GET, HEAD");
	if (expected.kind === "limited") {
		want("x-ratelimit-remaining", "0");
		want("x-ratelimit-reset", String(expected.resetAt));
		if (!(Number(headers["retry-after"]) >= 1)) problems.push(`retry-after: ${headers["retry-after"]}`);
	} else if ("retry-after" in headers || "x-ratelimit-reset" in headers) {
		problems.push("Retry-After or X-RateLimit-Reset on an answer that is no 429");
	}
	if (expected.kind === "preflight") {
		want("access-control-allow-methods", "GET, HEAD, OPTIONS");
		if (!(Number(headers["access-control-max-age"]) >= 3600)) {
			problems.push(`access-control-max-age: ${headers["access-control-max-age"]}`);
		}
	} else if (expected.kind === "forbidden") {
		if (!headers["content-type"]?.startsWith("text/plain"))
			problems.push(`content-type: ${headers["content-type"]}`);
	} else if (expected.kind === "page") {
		want("content-type", "text/html; charset=utf-8");
	} else if (expected.kind === "not-modified" || expected.kind === "page-not-modified") {
		want("content-type", undefined);
		want("vary", "Accept-Encoding");
		if (!/^W\/"[^"]+"$/.test(headers.etag ?? "")) problems.push(`etag: ${headers.etag}`);
	} else {
		want("content-type", JSON_TYPE);
	}
	return problems;
}

function bodyProblems(answer: RawAnswer, expected: Expected, method: string): string[] {
	if (
		method === "HEAD" ||
		expected.kind === "preflight" ||
		expected.kind === "not-modified" ||
		expected.kind === "page-not-modified"
	) {
		return answer.body === "" ? [] : [`a body on a ${method} ${answer.status}: ${answer.body.slice(0, 200)}`];
	}
	if (expected.kind === "forbidden") {
		return answer.body !== "" && !isJson(answer.body) ? [] : [`403 body: ${answer.body.slice(0, 200)}`];
	}
	if (expected.kind === "page") {
		const masked = expected.fax?.masked;
		if (!answer.body.startsWith("<!doctype html>")) return [`page: ${answer.body.slice(0, 200)}`];
		return masked && !answer.body.includes(masked) ? [`the page does not show ${masked}`] : [];
	}
	if (!isJson(answer.body)) return [`not JSON: ${answer.body.slice(0, 200)}`];
	const body = JSON.parse(answer.body) as unknown;
	if (expected.kind === "method") {
		const message = (body as { message?: unknown }).message;
		return typeof message === "string" && message !== "" && Object.keys(body as object).length === 1
			? []
			: [`405 body: ${answer.body}`];
	}
	const want = expectedBody(expected);
	return Bun.deepEquals(body, want, true)
		? []
		: [`body ${answer.body.slice(0, 2000)}\n  expected ${JSON.stringify(want).slice(0, 2000)}`];
}

function isJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

function leakProblems(answer: RawAnswer): string[] {
	const text = answer.body.toLowerCase();
	return SECRETS.filter((secret) => text.includes(secret.toLowerCase())).map((secret) => `shows "${secret}"`);
}

/** Everything that is wrong with an answer the application gave, against what the contract says it must be. */
export function answerProblems(answer: RawAnswer, expected: Expected, method: string): string[] {
	if (answer.status !== statusOf(expected)) {
		return [
			`status ${answer.status}, not ${statusOf(expected)} (${expected.kind}): ${answer.raw.slice(0, 600)}`,
		];
	}
	return [
		...headerProblems(answer, expected),
		...bodyProblems(answer, expected, method),
		...leakProblems(answer),
	];
}

/** The statuses Bun answers by itself, before the application sees a request (0: it closed the connection). */
export const BUN_OWN_STATUSES = new Set([0, 400, 413, 414, 431, 505]);

/** Counts of one suite's requests, printed at the end of the long run. */
export class Tally {
	requests = 0;
	serverErrors = 0;
	readonly #name: string;

	constructor(name: string) {
		this.#name = name;
	}

	see(answer: RawAnswer): RawAnswer {
		this.requests++;
		if (answer.status >= 500 && !BUN_OWN_STATUSES.has(answer.status)) this.serverErrors++;
		return answer;
	}

	report(cases: number): void {
		if (LONG_RUN) {
			console.log(
				`fuzz ${this.#name}: ${cases} cases, ${this.requests} requests, ${this.serverErrors} answers 5xx`,
			);
		}
	}
}

/** One request over a fresh connection, byte for byte: fetch would normalise what these tests send. */
export function exchange(
	port: number,
	method: string,
	target: string,
	headers: [string, string][] = [],
	body = "",
): Promise<RawAnswer> {
	const names = new Set(headers.map(([name]) => name.toLowerCase()));
	const lines = [
		...(names.has("host") ? [] : [["Host", "localhost"]]),
		...(names.has("user-agent") ? [] : [["User-Agent", "testfax-fuzz/1.0"]]),
		...headers,
		["Connection", "close"],
	].map(([name, value]) => `${name}: ${value}\r\n`);
	return rawExchange(
		port,
		Buffer.from(`${method} ${target} HTTP/1.1\r\n${lines.join("")}\r\n${body}`, "utf8"),
	);
}
