import { loadConfig } from "../../config.ts";
import {
	handedOverSessionLog,
	RECVQ_NAME,
	RECVQ_READ_LIMIT,
	receiveFax,
	recvqCall,
	recvqReceivedFile,
	SESSION_LOG_NAME,
	SESSION_LOG_READ_LIMIT,
} from "../../ingest/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, type CommandIO, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { withStore } from "../open-store.ts";

/** The file or call NAME names, with the session log and the reason HylaFAX gave. */
async function handedOver(name: string, reason: string | null, io: CommandIO) {
	if (SESSION_LOG_NAME.test(name))
		return recvqCall(name, 0, await io.readStdin(SESSION_LOG_READ_LIMIT), reason);
	const file = recvqReceivedFile(name, 0, await io.readStdin(RECVQ_READ_LIMIT));
	return { ...file, hylafax: { log: handedOverSessionLog(3), reason, callOnly: false } };
}

export const receiveHylafaxCommand: Command = {
	name: "receive-hylafax",
	summary: "list a fax or a failed call HylaFAX received, handed over on standard input (faxrcvd)",
	help: `Usage: fax receive-hylafax NAME [--reason=MESSAGE] < recvq/NAME [3< log/cCOMMID]
       fax receive-hylafax cCOMMID [--reason=MESSAGE] < log/cCOMMID

Lists a fax HylaFAX received: NAME is its queue file's name
(faxNNNNNNNNN.tif), standard input the queue file itself, unchanged (HylaFAX's
user opens it, the service's user reads it), and file descriptor 3, when open,
the call's session log (log/cCOMMID), read for the T.30 session shown on the
fax's page. The sender is the station ID (TSI) faxgetty wrote into the file,
received_at the file's last write (its last page). A fax is named by its queue
file's name and that time: handed over again, it lists nothing new ("already
listed").

With a session log's name (cCOMMID) instead, standard input is that log: a
call that left no file (it failed before its first page). It is listed as not
processable, with the TSI the log names and the end of the call (the log's last
write) as received_at, once: handed over again, it lists nothing new. A call
that no fax machine answered (no fax signal, a voice call, silence) is not
listed (docs/decisions.md).

MESSAGE is the reason faxgetty gave FaxRcvdCmd ("" for a clean call).
deploy/receivers/hylafax/faxrcvd runs it, through hand-over.

Prints one line. Exit codes: 0 listed (also as not processable, already
listed, or not a fax call), 1 not listed now (the database, the disk, the
input): the file stays in the queue and the next sweep tries again; 2 bad
arguments.`,
	async run(argv, io) {
		const { positionals, values } = parseCommandArgs(argv, { reason: { type: "string" } }, 1);
		const name = positionals[0] ?? "";
		if (!RECVQ_NAME.test(name) && !SESSION_LOG_NAME.test(name))
			throw new UsageError(
				"NAME must be a queue file's name, faxNNNNNNNNN.tif, or a session log's, cNNNNNNNNN",
			);
		try {
			const config = loadConfig(io.env);
			const file = await handedOver(name, values.reason || null, io);
			if (file === null) {
				io.out(`${name}: no fax machine answered (no fax signal, a voice call or silence): not listed`);
				return EXIT.ok;
			}
			const nowSeconds = Math.floor(io.clock() / 1000);
			const received = await withStore(config, (store, storageDir) =>
				receiveFax(file, store, storageDir, nowSeconds),
			);
			if (received.repeatOf !== undefined) io.out(`${name}: already listed as ${received.repeatOf}`);
			else {
				const { slug, page_count } = received.fax;
				io.out(
					received.reason === undefined
						? `${name}: listed as ${slug} (${page_count} pages)`
						: `${name}: listed as ${slug}, not processable: ${received.reason}`,
				);
			}
			return EXIT.ok;
		} catch (error) {
			io.err(`${name}: not listed yet, kept in the receive queue for the next sweep: ${errorMessage(error)}`);
			return EXIT.failed;
		}
	},
};
