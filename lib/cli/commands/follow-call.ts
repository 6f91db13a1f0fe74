import { loadConfig } from "../../config.ts";
import type { FaxStore } from "../../db/index.ts";
import { SESSION_LOG_NAME } from "../../ingest/index.ts";
import { CallFeed } from "../../live-calls/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, type CommandIO, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { withStore } from "../open-store.ts";

// After the log closes, the call's fax is awaited this long: its hand-over
// (FaxRcvdCmd) usually listed it before HylaFAX's last line. After a failed
// one the entry goes at this limit, and the next sweep (a minute at most)
// lists the fax.
const LISTED_WAIT_MS = 30_000;
const LISTED_CHECK_MS = 250;
// A call no fax machine answered is not listed: its entry says so this long, then goes.
const NOT_LISTED_SHOWN_MS = 3000;
// Rows of calls whose feed died with them (a host stopped mid-call) go this long after their last line.
const STALE_AFTER_MS = 3600_000;

// HylaFAX's last line came this long ago: the call is over even if the log was not seen closed.
const OVER_QUIET_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads the lines into the feed until they end, or until the call is over
 * and quiet: a follower whose log was closed before it watched for that
 * would otherwise wait for lines that never come.
 */
async function readCall(feed: CallFeed, lines: AsyncIterable<string>, io: CommandIO): Promise<void> {
	let reading = true;
	const read = (async () => {
		for await (const line of lines) feed.line(line);
	})().finally(() => {
		reading = false;
	});
	const quiet = (async () => {
		while (reading && !(feed.over && io.clock() - feed.lineAt >= OVER_QUIET_MS)) await sleep(LISTED_CHECK_MS);
	})();
	await Promise.race([read, quiet]);
}

async function awaitListing(store: FaxStore, key: string, io: CommandIO): Promise<string | null> {
	const until = io.clock() + LISTED_WAIT_MS;
	for (;;) {
		const listed = (await store.callRow(key))?.listed ?? null;
		if (listed !== null || io.clock() >= until) return listed;
		await sleep(LISTED_CHECK_MS);
	}
}

async function follow(store: FaxStore, lines: AsyncIterable<string>, io: CommandIO): Promise<string> {
	await store.removeOldCalls(io.clock() - STALE_AFTER_MS);
	const feed = new CallFeed(store, { clock: io.clock, failed: io.err });
	await readCall(feed, lines, io);
	await feed.end();
	const key = feed.key;
	if (key === null) return "no session log line came: nothing shown";
	const faxCall = feed.call().faxMachine !== false;
	const listed = faxCall ? await awaitListing(store, key, io) : null;
	if (!faxCall) await sleep(NOT_LISTED_SHOWN_MS);
	await store.removeCall(key);
	return listed === null ? `call ${key} ended` : `call ${key} ended, listed as ${listed}`;
}

export const followCallCommand: Command = {
	name: "follow-call",
	summary:
		"show a call on /faxtest while it is received, from its session log on standard input (call-watch)",
	help: `Usage: fax follow-call cCOMMID < the session log as HylaFAX writes it

Reads a receiving call's session log (log/cCOMMID) line by line as HylaFAX
writes it (deploy/receivers/hylafax/call-watch runs \`tail -f\` on it as
HylaFAX's user and hands the lines over through hand-over), and writes how far
the call has come to the database, at most five times a second: every API
instance shows it on /faxtest as a call in progress, the sender masked. When
standard input ends (the log was closed), the call is written as ended; once
its fax is listed (at most 30 s later), the entry is removed and the listed
fax takes its place. Nothing of it reaches /api/faxes.

Prints one line. Exit codes: 0 done (a write that failed is retried on the
next line; the fax itself is handed over by faxrcvd either way), 1 the
database could not be opened, 2 bad arguments.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const name = positionals[0] ?? "";
		if (!SESSION_LOG_NAME.test(name))
			throw new UsageError("cCOMMID must be a session log's name, cNNNNNNNNN");
		if (io.stdinLines === undefined) throw new UsageError("standard input cannot be read line by line here");
		const lines = io.stdinLines();
		try {
			const config = loadConfig(io.env);
			io.out(`${name}: ${await withStore(config, (store) => follow(store, lines, io))}`);
			return EXIT.ok;
		} catch (error) {
			io.err(`${name}: the call is not shown: ${errorMessage(error)}`);
			return EXIT.failed;
		}
	},
};
