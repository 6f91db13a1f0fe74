import { loadConfig } from "../../config.ts";
import { PipelineUnavailableError } from "../../document/index.ts";
import { reprocessFax } from "../../ingest/index.ts";
import { type Command, EXIT, slugArgument } from "../command.ts";
import { withStore } from "../open-store.ts";

/** Exit code of a fax whose original is still not processable: the document is at fault. */
const EXIT_NOT_PROCESSABLE = 3;

export const reprocessCommand: Command = {
	name: "reprocess",
	summary: "process a not-processable fax again from the file it was received as",
	help: `Usage: fax reprocess SLUG

Processes again a fax listed as not processable, from the file it was
received as: each such file is kept for the fax's 30 days, never served. For
a fax listed wrong while the host was broken (run \`fax check\` first).
A listed fax is never changed in place: once processed it is listed under a
new slug, printed, with the same sender and received_at, and SLUG answers
410 from then on; a receiver handing the same fax over again gets the new one.

Exit codes: 0 listed again, 3 still not processable (the reason on standard
error: the document itself is at fault), 1 no original kept for SLUG
(processed, removed, imported or unknown) or the host still cannot process
documents, 2 bad arguments.`,
	async run(argv, io) {
		const slug = slugArgument(argv);
		return withStore(loadConfig(io.env), async (store, storageDir) => {
			let result: Awaited<ReturnType<typeof reprocessFax>>;
			try {
				result = await reprocessFax(slug, store, storageDir, Math.floor(io.clock() / 1000));
			} catch (error) {
				if (!(error instanceof PipelineUnavailableError)) throw error;
				io.err(`reprocess: ${error.message}; ${slug} is unchanged`);
				return EXIT.failed;
			}
			if (result.state === "no-original") {
				io.err(`reprocess: no not-processable fax ${slug} with its original kept`);
				return EXIT.failed;
			}
			if (result.state === "not-processable") {
				io.err(`reprocess: ${slug} is still not processable: ${result.reason}`);
				return EXIT_NOT_PROCESSABLE;
			}
			io.out(result.fax.slug);
			io.err(
				`reprocess: ${slug} is listed again as ${result.fax.slug} (${result.fax.page_count} pages); ${slug} answers 410`,
			);
			return EXIT.ok;
		});
	},
};
