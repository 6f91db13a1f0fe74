import { isUnknownSenderQuery } from "../fax/sender.ts";
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
	/** Time between polls. Default 15, as spec part 4.3 advises. */
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

function checkBaseUrl(baseUrl: string): void {
	const url = URL.parse(baseUrl);
	if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
		throw new TypeError(`baseUrl must be an absolute http(s) URL, got "${baseUrl}"`);
	}
	if (url.search !== "" || url.hash !== "") {
		throw new TypeError(`baseUrl must not have a query or fragment, got "${baseUrl}"`);
	}
}

function positiveSeconds(name: string, value: number, max: number): number {
	if (!Number.isFinite(value) || value <= 0 || value > max) {
		throw new RangeError(`${name} must be a number of seconds above 0 and at most ${max}, got ${value}`);
	}
	return value * 1000;
}

function describeTarget(since: string, from: string | undefined, pages: number | undefined): string {
	let sender = "";
	if (from !== undefined) sender = isUnknownSenderQuery(from) ? " without sender ID" : ` from "${from}"`;
	const length = pages === undefined ? "" : ` with ${pages} page${pages === 1 ? "" : "s"}`;
	return `a fax${sender}${length} received after ${since}`;
}

/** Checks the options (TypeError or RangeError: they are the caller's bug) and fills in defaults. */
export function planWait(options: WaitOptions, startedAtMs: number): WaitPlan {
	checkBaseUrl(options.baseUrl);
	const sinceValue = options.since ?? new Date(startedAtMs);
	if (sinceValue instanceof Date && Number.isNaN(sinceValue.getTime())) {
		throw new RangeError("since is an invalid Date");
	}
	if (options.from === "") throw new RangeError("from must not be empty");
	const { pages } = options;
	if (pages !== undefined && (!Number.isSafeInteger(pages) || pages < 1)) {
		throw new RangeError(`pages must be a whole number of at least 1, got ${pages}`);
	}
	const userAgent = options.userAgent ?? WAIT_USER_AGENT;
	// Headers rejects what could not be sent (line breaks, for one), before any request is made.
	new Headers({ "user-agent": userAgent });
	const since = sinceParameter(sinceValue);
	return {
		url: listUrl(options.baseUrl, { since, from: options.from }),
		pages,
		timeoutMs: positiveSeconds(
			"timeoutSeconds",
			options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
			MAX_TIMEOUT_SECONDS,
		),
		intervalMs: positiveSeconds(
			"intervalSeconds",
			options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS,
			MAX_TIMEOUT_SECONDS,
		),
		userAgent,
		waitingFor: describeTarget(since, options.from, pages),
	};
}
