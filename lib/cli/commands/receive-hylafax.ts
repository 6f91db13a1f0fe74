import { loadConfig } from "../../config.ts";
import { RECVQ_NAME, RECVQ_READ_LIMIT, receiveFax, recvqReceivedFile } from "../../ingest/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { withStore } from "../open-store.ts";

export const receiveHylafaxCommand: Command = {
	name: "receive-hylafax",
	summary: "list a fax HylaFAX received, its queue file on standard input (faxrcvd)",
	help: `Usage: fax receive-hylafax NAME < recvq/NAME

Lists a fax HylaFAX received: NAME is its queue file's name
(faxNNNNNNNNN.tif), standard input the queue file itself, unchanged (HylaFAX's
user opens it, the service's user reads it). The sender is the station ID
(TSI) faxgetty wrote into the file, received_at the file's last write (its
last page). A fax is named by its queue file's name and that time: handed
over again, it lists nothing new ("already listed").
deploy/receivers/hylafax/faxrcvd runs it, through hand-over.

Prints one line. Exit codes: 0 listed (also as not processable, or already
listed), 1 not listed now (the database, the disk, the input): the file stays
in the queue and the next sweep tries again; 2 bad arguments.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const name = positionals[0] ?? "";
		if (!RECVQ_NAME.test(name)) throw new UsageError("NAME must be a queue file's name, faxNNNNNNNNN.tif");
		try {
			const config = loadConfig(io.env);
			const file = recvqReceivedFile(name, 0, await io.readStdin(RECVQ_READ_LIMIT));
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
