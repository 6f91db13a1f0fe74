import { isUnknownSenderQuery, parseOffsetDateTime } from "../fax/index.ts";
import { plural } from "../util/index.ts";
import { listUrl, sinceParameter } from "./list-url.ts";
import { WAIT_USER_AGENT } from "./user-agent.ts";

export const DEFAULT_TIMEOUT_SECONDS = 600;
export const DEFAULT_INTERVAL_SECONDS = 15;
/** A day, for the timeout and the interval alike: longer is surely a mistake. */
export const MAX_TIMEOUT_SECONDS = 86_400;

/** What to wait for, as a caller states it. */
export interface WaitOptions {
	/** The API's base address, e.g. `https://api.example.com`; a path prefix is kept. */
	baseUrl: string;
	/**
	 * Only faxes received after this. A string is sent as written (ISO 8601 with an
	 * offset; the API lists faxes of a later whole second). A Date counts from its
	 * own second, so nothing received at or after the instant is missed. Default:
	 * the moment waiting starts.
	 */
	since?: Date | string;
	/** The sender, unmasked, as the API's `from` parameter; `Unknown` for faxes without sender ID. */
	from?: string;
	/** Also require exactly this many pages: how a fax without sender ID is recognised. */
	pages?: number;
	/** Give up after this long. Default 600. */
	timeoutSeconds?: number;
	/** Time between polls. Default 15, as docs/API.md advises. */
	intervalSeconds?: number;
	/** Default `testfax-wait/<version>`. */
	userAgent?: string;
}

/** Checked options with every default filled in. */
export interface WaitPlan {
	url: string;
	pages: number | undefined;
	timeoutMs: number;
	intervalMs: number;
	userAgent: string;
	/** For people: what a matching fax looks like. */
	waitingFor: string;
}

/**
 * An option planWait refused. The option and the broken rule come apart from the
 * message, so a caller can word the refusal in its own terms: the CLI names its
 * flags and quotes what was typed.
 */
export class WaitOptionError extends RangeError {
	override name = "WaitOptionError";
	readonly option: keyof WaitOptions;
	/** What the option must be, e.g. "must not be empty". */
	readonly rule: string;

	constructor(option: keyof WaitOptions, rule: string, value: unknown) {
		super(`${option} ${rule}, got ${typeof value === "string" ? `"${value}"` : String(value)}`);
		this.option = option;
		this.rule = rule;
	}
}

function checkBaseUrl(baseUrl: string): void {
	const url = URL.parse(baseUrl);
	if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
		throw new WaitOptionError("baseUrl", "must be an absolute http(s) URL", baseUrl);
	}
	if (url.search !== "" || url.hash !== "") {
		throw new WaitOptionError("baseUrl", "must not have a query or fragment", baseUrl);
	}
}

function checkSince(since: Date | string): void {
	if (since instanceof Date) {
		if (Number.isNaN(since.getTime())) throw new WaitOptionError("since", "must be a valid Date", since);
	} else if (parseOffsetDateTime(since) === null) {
		// The API's own parser: the server would refuse the same strings, only later and less clearly.
		throw new WaitOptionError(
			"since",
			"must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z",
			since,
		);
	}
}

function checkUserAgent(userAgent: string): void {
	// Visible ASCII only: anything else is either refused by fetch or mangled on the way.
	if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(userAgent)) {
		throw new WaitOptionError("userAgent", "must be printable ASCII text", userAgent);
	}
}

function positiveSeconds(option: "timeoutSeconds" | "intervalSeconds", value: number): number {
	if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_SECONDS) {
		throw new WaitOptionError(
			option,
			`must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`,
			value,
		);
	}
	return value * 1000;
}

function describeTarget(since: string, from: string | undefined, pages: number | undefined): string {
	let sender = "";
	if (from !== undefined) sender = isUnknownSenderQuery(from) ? " without sender ID" : ` from "${from}"`;
	const length = pages === undefined ? "" : ` with ${plural(pages, "page")}`;
	return `a fax${sender}${length} received after ${since}`;
}

/** Checks the options (a WaitOptionError: they are the caller's bug) and fills in defaults. */
export function planWait(options: WaitOptions, startedAtMs: number): WaitPlan {
	checkBaseUrl(options.baseUrl);
	const sinceValue = options.since ?? new Date(startedAtMs);
	checkSince(sinceValue);
	if (options.from === "") throw new WaitOptionError("from", "must not be empty", options.from);
	const { pages } = options;
	if (pages !== undefined && (!Number.isSafeInteger(pages) || pages < 1)) {
		throw new WaitOptionError("pages", "must be a whole number of at least 1", pages);
	}
	const userAgent = options.userAgent ?? WAIT_USER_AGENT;
	checkUserAgent(userAgent);
	const since = sinceParameter(sinceValue);
	return {
		url: listUrl(options.baseUrl, { since, from: options.from }),
		pages,
		timeoutMs: positiveSeconds("timeoutSeconds", options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
		intervalMs: positiveSeconds("intervalSeconds", options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS),
		userAgent,
		waitingFor: describeTarget(since, options.from, pages),
	};
}
