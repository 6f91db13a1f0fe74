import { loadConfig } from "../../config.ts";
import { MAX_EMAIL_BYTES } from "../../ingest/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { storeReceived } from "../store-received.ts";

/** sysexits.h EX_TEMPFAIL: Postfix keeps the message and delivers it again later. */
export const EXIT_TEMPFAIL = 75;

export const receiveMailCommand: Command = {
	name: "receive-mail",
	summary: "list an email the mail server pipes in (Postfix pipe transport)",
	help: `Usage: fax receive-mail [QUEUE_ID] < message

Lists a scan-to-email or Internet-fax test that the mail server delivers on
standard input, as "fax ingest - --source email" does, and also:
  - it is named by its Message-ID (else by QUEUE_ID, the mail server's queue
    id): delivered again, it lists nothing new ("already listed");
  - received_at is the time in its first Received header, the one our mail
    server wrote on arrival, so a delivery retried later keeps its time.
deploy/receivers/postfix/testfax-mail runs it from Postfix's pipe(8).

Prints one line. Exit codes: 0 listed (also as not processable, or already
listed), 75 not listed now (the database, the disk): the mail server keeps the
message and tries again; the reason is on standard error.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, argv.length === 0 ? 0 : 1);
		const queueId = positionals[0] || null;
		try {
			const config = loadConfig(io.env);
			const bytes = await io.readStdin(MAX_EMAIL_BYTES + 1);
			const received = await storeReceived(
				config,
				{
					bytes,
					filename: null,
					source: "email",
					relayed: { queueId, checks: { dnsServers: config.dnsServers } },
				},
				io.clock(),
			);
			if (received instanceof Error) throw received;
			if (received.repeatOf !== undefined) io.out(`receive-mail: already listed as ${received.repeatOf}`);
			else if (received.reason !== undefined) {
				io.out(`receive-mail: listed as ${received.fax.slug}, not processable: ${received.reason}`);
			} else io.out(`receive-mail: listed as ${received.fax.slug}`);
			return EXIT.ok;
		} catch (error) {
			io.err(`receive-mail: not listed now, the mail server will retry: ${errorMessage(error)}`);
			return EXIT_TEMPFAIL;
		}
	},
};
