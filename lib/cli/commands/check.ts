import { pipelineFault } from "../../document/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";

export const checkCommand: Command = {
	name: "check",
	summary: "check that the document pipeline (sharp, PDFium) loads on this host",
	help: `Usage: fax check

Loads every part of the document pipeline as an ingest uses it: sharp (a
native module npm installs for this platform as an optional package) and
PDFium. deploy/receivers/install.sh runs it before it starts anything, and the
server's /readyz reports it.

Prints one line. Exit codes: 0 every part loads; 1 a part does not, named on
standard error: faxes are then not listed but kept for the next try (the
receive queue, the mail queue) until the host is fixed.`,
	async run(argv, io) {
		parseCommandArgs(argv, {}, 0);
		const fault = await pipelineFault();
		if (fault === null) {
			io.out("fax check: the document pipeline loads (sharp, PDFium)");
			return EXIT.ok;
		}
		io.err(`fax check: ${fault}`);
		return EXIT.failed;
	},
};
