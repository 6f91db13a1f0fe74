import { type Config, loadConfig } from "../../config.ts";
import { maskSender } from "../../fax/index.ts";
import {
	type MailRefusal,
	PostfixLogReader,
	REFUSALS_PER_CLIENT,
	RefusalBound,
	refusalFile,
} from "../../ingest/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, type CommandIO, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { storeReceived } from "../store-received.ts";

// A database or disk that fails is tried again this often, this many times (a minute), before the refusal is only logged.
const RETRY_MS = 5000;
const RETRIES = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lists one refusal, trying again while the host fails; one line either way. */
async function list(config: Config, refusal: MailRefusal, io: CommandIO): Promise<void> {
	const name = `${refusal.queueId} (${refusal.kind}, from ${maskSender(refusal.sender) ?? "<>"})`;
	for (let attempt = 1; ; attempt++) {
		const received = await storeReceived(
			config,
			refusalFile(refusal, Math.floor(io.clock() / 1000)),
			io.clock(),
		);
		if (!(received instanceof Error)) {
			io.out(
				`${name}: ${received.repeatOf === undefined ? `listed as ${received.fax.slug}` : `already listed as ${received.repeatOf}`}`,
			);
			return;
		}
		if (attempt > RETRIES) {
			io.err(`${name}: not listed, the host kept failing: ${errorMessage(received)}`);
			return;
		}
		await sleep(RETRY_MS);
	}
}

async function watch(config: Config, lines: AsyncIterable<string>, io: CommandIO): Promise<void> {
	const reader = new PostfixLogReader();
	const bound = new RefusalBound();
	const listing = new Set<Promise<void>>();
	for await (const line of lines) {
		const refusal = reader.read(line);
		if (refusal === null) continue;
		if (!bound.take(refusal.client, io.clock())) {
			io.err(
				`${refusal.queueId}: not listed: its client listed ${REFUSALS_PER_CLIENT} in the last hour already`,
			);
			continue;
		}
		// Listed beside the reading: a slow database must not hold back the lines after it.
		const listed = list(config, refusal, io)
			.catch((error) => io.err(`${refusal.queueId}: not listed: ${errorMessage(error)}`))
			.finally(() => listing.delete(listed));
		listing.add(listed);
	}
	await Promise.all(listing);
}

export const watchMailCommand: Command = {
	name: "watch-mail",
	summary:
		"list the messages to a test address the mail server did not take whole, from its log on standard input (mail-watch)",
	help: `Usage: fax watch-mail < Postfix's log as it is written

Reads Postfix's log line by line as it is written
(deploy/receivers/postfix/mail-watch runs \`tail -F\` on it and hands the lines
over) and lists each message to a test address that Postfix refused as larger
than it takes, or whose transfer broke off (the connection lost, the client
silent past smtpd's timeout), as a not-processable email test: its envelope
sender masked, now as received_at, named by Postfix's queue id. The receivers'
install makes smtpd log each test address it accepts ("testfax test
address"): only those messages are listed. A client address lists at most
${REFUSALS_PER_CLIENT} in an hour; the rest are only reported here. A database or disk that
fails is tried again every ${RETRY_MS / 1000} s, ${RETRIES} times, while the lines after it are read.

Prints one line per message. Runs until standard input ends. Exit codes: 0
done, 1 the settings cannot be read, 2 bad arguments.`,
	async run(argv, io) {
		parseCommandArgs(argv, {}, 0);
		if (io.stdinLines === undefined) throw new UsageError("standard input cannot be read line by line here");
		try {
			await watch(loadConfig(io.env), io.stdinLines(), io);
			return EXIT.ok;
		} catch (error) {
			io.err(`watch-mail: ${errorMessage(error)}`);
			return EXIT.failed;
		}
	},
};
