import { type Config, loadConfig } from "../../config.ts";
import type { FaxStore } from "../../db/index.ts";
import {
	completeRecvqFaxes,
	type RecvqFax,
	receiveFax,
	recvqFax,
	recvqFaxes,
	recvqReceivedFile,
} from "../../ingest/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

/** Hands one queued fax over; returns the line that says what became of it. */
async function handOver(
	fax: RecvqFax,
	store: FaxStore,
	storageDir: string,
	nowSeconds: number,
): Promise<string> {
	const received = await receiveFax(await recvqReceivedFile(fax), store, storageDir, nowSeconds);
	if (received.repeatOf !== undefined) return `already listed as ${received.repeatOf}`;
	const { slug, page_count } = received.fax;
	return received.reason === undefined
		? `listed as ${slug} (${page_count} pages)`
		: `listed as ${slug}, not processable: ${received.reason}`;
}

/** The faxes to hand over: the one named, or those of the queue not listed yet. */
async function faxesToHandOver(
	store: FaxStore,
	target: { file: string } | { recvq: string },
	nowSeconds: number,
): Promise<RecvqFax[]> {
	if ("file" in target) return [await recvqFax(target.file)];
	const queued = await recvqFaxes(target.recvq, nowSeconds);
	return completeRecvqFaxes(queued.filter((fax) => store.receiptSlug(fax.receiptKey) === null));
}

const KEPT = "not listed yet, kept in the receive queue for the next sweep";

/** One line per fax handed over, each saying whether it is listed. */
async function receive(config: Config, target: { file: string } | { recvq: string }, nowMs: number) {
	const lines: { text: string; listed: boolean }[] = [];
	const nowSeconds = Math.floor(nowMs / 1000);
	await withStore(config, async (store, storageDir) => {
		for (const fax of await faxesToHandOver(store, target, nowSeconds)) {
			try {
				lines.push({
					text: `${fax.path}: ${await handOver(fax, store, storageDir, nowSeconds)}`,
					listed: true,
				});
			} catch (error) {
				lines.push({ text: `${fax.path}: ${KEPT}: ${errorMessage(error)}`, listed: false });
			}
		}
	});
	return lines;
}

export const receiveHylafaxCommand: Command = {
	name: "receive-hylafax",
	summary: "list a fax HylaFAX received (faxrcvd), or every one of its queue not listed yet",
	help: `Usage: fax receive-hylafax FILE
       fax receive-hylafax --recvq DIR

Lists a fax HylaFAX received: FILE is the queue file faxrcvd is called with
(recvq/faxNNNNNNNNN.tif). The sender is the station ID (TSI) faxgetty wrote
into the file, received_at the file's last write (its last page).
A fax is named by its queue file and that time: handed over again, it lists
nothing new ("already listed").

With --recvq DIR, every fax of the queue DIR received within the last 30 days,
not listed yet and no longer being received (faxgetty's lock is gone): the
sweep that lists the faxes whose first hand-over failed.
deploy/receivers/hylafax/faxrcvd runs it for HylaFAX, and for cron.

Prints one line per fax handed over. Exit codes: 0 each one listed (also as
not processable, or already listed), 1 one or more not listed now (the
database, the disk, the file): they stay in the queue, and the next sweep
tries again; 2 bad arguments.`,
	async run(argv, io) {
		const sweep = argv.some((arg) => arg === "--recvq" || arg.startsWith("--recvq="));
		const { values, positionals } = parseCommandArgs(argv, { recvq: { type: "string" } }, sweep ? 0 : 1);
		const target = values.recvq === undefined ? { file: positionals[0] ?? "" } : { recvq: values.recvq };
		const config = loadConfig(io.env);
		try {
			const lines = await receive(config, target, io.clock());
			for (const line of lines) (line.listed ? io.out : io.err)(line.text);
			return lines.every((line) => line.listed) ? EXIT.ok : EXIT.failed;
		} catch (error) {
			io.err(
				`receive-hylafax: ${"file" in target ? target.file : target.recvq}: ${KEPT}: ${errorMessage(error)}`,
			);
			return EXIT.failed;
		}
	},
};
