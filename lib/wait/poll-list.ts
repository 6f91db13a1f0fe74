import type { Fax } from "../fax/index.ts";
import { retryAfterMs } from "./retry-delay.ts";

/** The part of `fetch` the client uses; tests pass a fake. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** What one GET of the list came to, as far as waiting is concerned. */
export type PollOutcome =
	/** `etag` is the answer's ETag, null when it had none. */
	| { kind: "listed"; status: number; faxes: Fax[]; etag: string | null; rateLimitRemaining: number | null }
	/** A 304: the list is still the one of the ETag sent. */
	| { kind: "unchanged"; status: number; rateLimitRemaining: number | null }
	| { kind: "rate-limited"; status: number; retryAfterMs: number | null; rateLimitRemaining: number | null }
	/** A 4xx other than 429: asking again cannot help. */
	| { kind: "refused"; status: number; message: string }
	/** No answer, a 5xx, or an answer that is not a list: worth retrying. */
	| { kind: "failed"; status: number | null; message: string; retryAfterMs: number | null };

export interface PollRequest {
	url: string;
	userAgent: string;
	fetch: Fetch;
	/** A request without an answer after this long counts as failed. */
	timeoutMs: number;
	/** The ETag of the last list, sent as If-None-Match. */
	etag?: string | null;
	signal?: AbortSignal;
}

const MAX_MESSAGE_LENGTH = 200;

// Only the fields matching relies on are checked, so fields the API may add later do no harm.
function isFaxList(value: unknown): value is Fax[] {
	return (
		Array.isArray(value) &&
		value.every(
			(item) =>
				typeof item === "object" &&
				item !== null &&
				typeof item.slug === "string" &&
				typeof item.received_at === "string" &&
				(item.page_count === null || typeof item.page_count === "number"),
		)
	);
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function integerHeader(response: Response, name: string): number | null {
	const value = response.headers.get(name);
	return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** The server's own words: the JSON `message`, else a short plain body, else the status line. */
function messageOf(response: Response, text: string): string {
	const body = parseJson(text);
	if (typeof body === "object" && body !== null && "message" in body) {
		if (typeof body.message === "string" && body.message !== "") return body.message;
	} else {
		const plain = text.trim().split("\n")[0]?.slice(0, MAX_MESSAGE_LENGTH) ?? "";
		if (plain !== "") return plain;
	}
	return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
}

function classify(response: Response, text: string): PollOutcome {
	const { status } = response;
	const rateLimitRemaining = integerHeader(response, "x-ratelimit-remaining");
	if (status >= 200 && status < 300) {
		const faxes = parseJson(text);
		const etag = response.headers.get("etag");
		if (isFaxList(faxes)) return { kind: "listed", status, faxes, etag, rateLimitRemaining };
		return { kind: "failed", status, message: "the answer is not a list of faxes", retryAfterMs: null };
	}
	if (status === 304) return { kind: "unchanged", status, rateLimitRemaining };
	if (status === 429) {
		return {
			kind: "rate-limited",
			status,
			retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
			rateLimitRemaining,
		};
	}
	if (status >= 400 && status < 500) return { kind: "refused", status, message: messageOf(response, text) };
	return {
		kind: "failed",
		status,
		message: messageOf(response, text),
		retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
	};
}

function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	// Node names the cause only in `code`; Bun puts it into the message as well.
	const code = "code" in error && typeof error.code === "string" ? error.code : "";
	return code === "" || error.message.includes(code) ? error.message : `${error.message} (${code})`;
}

/** One GET of the list. Never throws, except the caller's abort reason. */
export async function pollList(request: PollRequest): Promise<PollOutcome> {
	const timeout = new AbortController();
	const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
	const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
	try {
		const headers: Record<string, string> = { "user-agent": request.userAgent, accept: "application/json" };
		if (request.etag) headers["if-none-match"] = request.etag;
		const response = await request.fetch(request.url, { headers, signal });
		return classify(response, await response.text());
	} catch (error) {
		if (request.signal?.aborted) throw request.signal.reason;
		const message = timeout.signal.aborted
			? `no answer within ${request.timeoutMs / 1000} s`
			: describeError(error);
		return { kind: "failed", status: null, message, retryAfterMs: null };
	} finally {
		clearTimeout(timer);
	}
}
