import { loadConfig } from "../../config.ts";
import { deleteFaxFiles } from "../../storage/index.ts";
import { errorMessage } from "../../util/index.ts";
import { type Command, EXIT, slugArgument } from "../command.ts";
import { withStore } from "../open-store.ts";

export const removeCommand: Command = {
	name: "remove",
	summary: "remove a fax on request: it answers 410 from then on",
	help: `Usage: fax remove SLUG

Removes the fax on request: its row goes, its slug answers 410 from then on and
is never reused, and its PDF and thumbnail are deleted.

Exit codes: 0 removed, 1 no live fax has this slug, 2 bad arguments.`,
	async run(argv, io) {
		const slug = slugArgument(argv);
		return withStore(loadConfig(io.env), async (store, storageDir) => {
			if (!(await store.remove(slug, Math.floor(io.clock() / 1000)))) {
				io.err(`remove: no fax ${slug} (unknown, or already removed)`);
				return EXIT.failed;
			}
			try {
				await deleteFaxFiles(storageDir, slug);
			} catch (error) {
				io.err(`remove: ${slug} answers 410 now, but its files could not be deleted: ${errorMessage(error)}`);
				return EXIT.failed;
			}
			io.out(`removed ${slug}`);
			return EXIT.ok;
		});
	},
};
