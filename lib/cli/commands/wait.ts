import { plural } from "../../util/index.ts";
import {
	DEFAULT_INTERVAL_SECONDS,
	DEFAULT_TIMEOUT_SECONDS,
	formatSeconds,
	lineReporter,
	liveLineReporter,
	MAX_TIMEOUT_SECONDS,
	type ProgressReporter,
	type StatusTerminal,
	silentReporter,
	WAIT_USER_AGENT,
	WaitOptionError,
	type WaitOptions,
	type WaitResult,
	waitForFax,
} from "../../wait/index.ts";
import { type Command, type CommandIO, EXIT, parseCommandArgs, UsageError } from "../command.ts";

/** Exit codes of `fax wait`, as its help documents them. */
const WAIT_EXIT = {
	found: EXIT.ok,
	timedOut: EXIT.failed,
	refused: EXIT.usage,
	unreachable: 3,
	rateLimited: 4,
} as const;

/** Where progress goes: standard error, which shows a live line only when it is a terminal. */
export interface ProgressStream extends StatusTerminal {
	isTTY?: boolean;
}

const HELP = `Usage: fax wait --base-url URL [--since T] [--from SENDER] [--pages N]
                [--timeout SECONDS] [--interval SECONDS] [--user-agent UA] [--quiet]

Waits until a test fax shows up in the public API and prints it: start the
command, then send the fax. It polls
  GET <URL>/api/faxes?since=T&limit=100[&from=SENDER]
as the API's guide advises, with the same T on every call, and prints the
oldest matching fax received after T. The guide: "Waiting for a test fax" in
docs/API.md of this project, also served at <URL>/docs/API.md; the whole API
is described at <URL>/docs.

Options:
  --base-url URL      the API's address, e.g. https://api.example.com (required)
  --since T           only faxes received after T: ISO 8601 with an offset, like
                      2026-11-21T10:00:00Z or 2026-11-21T11:00:00+01:00; the API
                      lists faxes of a later whole second.
                      Default: the moment the command starts; a fax received in
                      that same second counts too, so none sent after it is missed.
  --from SENDER       only faxes of this sender: the full number, station ID or
                      email address as sent, never the masked form; "Unknown"
                      selects faxes that came without sender ID
  --pages N           only faxes of exactly N pages: how to recognise a fax that
                      came without sender ID
  --timeout SECONDS   give up after this long (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS});
                      the last poll falls on the limit itself
  --interval SECONDS  time between polls (default ${DEFAULT_INTERVAL_SECONDS})
  --user-agent UA     the User-Agent header (default ${WAIT_USER_AGENT})
  --quiet             no progress on standard error; failures are still reported

Standard output: the matching fax as one line of JSON, nothing else.
Standard error: progress. On a terminal, one status line rewritten in place
(elapsed time, polls, last HTTP status, requests left, what it waits for);
otherwise a timestamped line at the start and after each poll.

Errors: on 429 it waits the Retry-After seconds. Network errors and 5xx answers
are retried after the interval, then twice as long each time up to 60 s (or the
interval, if longer), all within --timeout. Any other 4xx answer (422: a
parameter is invalid) stops at once with the server's message.

Exit codes:
  0  found: the fax is on standard output
  1  timed out: the service answered, but no matching fax came in time
  2  bad arguments, or the service refused the request (4xx) with its message
  3  the service could not be reached, or kept failing until the time limit
  4  rate limited: every answer until the time limit was 429 (Too Many
     Attempts); this address used up its requests, so wait a minute or ask
     less often elsewhere

Example:
  npm run fax -- wait --base-url http://localhost:3000 --from +15551234567`;

const OPTIONS = {
	"base-url": { type: "string" },
	since: { type: "string" },
	from: { type: "string" },
	pages: { type: "string" },
	timeout: { type: "string" },
	interval: { type: "string" },
	"user-agent": { type: "string" },
	quiet: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];

/** The flag behind each library option, to word the library's refusals in the user's terms. */
const FLAGS = {
	baseUrl: "base-url",
	since: "since",
	from: "from",
	pages: "pages",
	timeoutSeconds: "timeout",
	intervalSeconds: "interval",
	userAgent: "user-agent",
} as const satisfies Record<keyof WaitOptions, keyof typeof OPTIONS>;

/**
 * Plain decimals only, since Number alone would also take "1e3", "0x10" and " 5 ".
 * Anything else becomes NaN, for planWait to refuse.
 */
function decimal(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	return /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
}

/** The options as typed; their rules are planWait's, refused as a WaitOptionError. */
function waitOptions(values: Values): WaitOptions {
	const baseUrl = values["base-url"];
	if (baseUrl === undefined) throw new UsageError("--base-url is required");
	return {
		baseUrl,
		since: values.since,
		from: values.from,
		pages: decimal(values.pages),
		timeoutSeconds: decimal(values.timeout),
		intervalSeconds: decimal(values.interval),
		userAgent: values["user-agent"],
	};
}

function usageError(error: WaitOptionError, values: Values): UsageError {
	const flag = FLAGS[error.option];
	const typed = values[flag];
	// An empty value is plain from the rule itself ("must not be empty"); quoting it adds nothing.
	return new UsageError(`--${flag} ${error.rule}${typed ? `, got "${typed}"` : ""}`);
}

function reporterFor(quiet: boolean, progress: ProgressStream, io: CommandIO): ProgressReporter {
	if (quiet) return silentReporter;
	return progress.isTTY === true ? liveLineReporter(progress, io.clock) : lineReporter(io.err, io.clock);
}

/** Prints the end of the wait and picks the exit code. */
function conclude(result: WaitResult, quiet: boolean, io: CommandIO): number {
	const after = `after ${formatSeconds(result.elapsedMs)} and ${plural(result.polls, "poll")}`;
	switch (result.kind) {
		case "found":
			io.out(JSON.stringify(result.fax));
			if (!quiet) io.err(`fax wait: found ${result.fax.slug} ${after}`);
			return WAIT_EXIT.found;
		case "timed-out":
			io.err(`fax wait: timed out: no matching fax ${after}`);
			return WAIT_EXIT.timedOut;
		case "client-error":
			io.err(`fax wait: the service refused the request (HTTP ${result.status}): ${result.message}`);
			io.err(`  GET ${result.url}${result.status === 404 ? "  (is --base-url right?)" : ""}`);
			return WAIT_EXIT.refused;
		case "rate-limited":
			io.err(
				`fax wait: gave up ${after}: the service answered only 429 (rate limit used up), never the list`,
			);
			return WAIT_EXIT.rateLimited;
		case "unreachable": {
			const problem = result.status === null ? "could not be reached" : "kept failing";
			io.err(`fax wait: gave up ${after}: the service ${problem}: ${result.message}`);
			return WAIT_EXIT.unreachable;
		}
	}
}

/** `fax wait`, over a given progress stream: tests pass a fake terminal. */
export function createWaitCommand(progress: ProgressStream): Command {
	return {
		name: "wait",
		summary: "wait until a test fax shows up in the API, then print it",
		help: HELP,
		async run(argv, io) {
			const { values } = parseCommandArgs(argv, OPTIONS, 0);
			const options = waitOptions(values);
			const quiet = values.quiet === true;
			const reporter = reporterFor(quiet, progress, io);
			let result: WaitResult;
			try {
				result = await waitForFax(options, {
					onProgress: (event) => reporter.report(event),
					clock: io.clock,
				});
			} catch (error) {
				throw error instanceof WaitOptionError ? usageError(error, values) : error;
			} finally {
				reporter.finish();
			}
			return conclude(result, quiet, io);
		},
	};
}

export const waitCommand = createWaitCommand(process.stderr);
