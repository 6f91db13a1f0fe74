import { loadConfig } from "../../config.ts";
import { purgeExpired } from "../../storage/index.ts";
import { plural } from "../../util/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

export const purgeCommand: Command = {
	name: "purge",
	summary: "delete files and rows of faxes past the 30-day retention",
	help: `Usage: fax purge

Deletes the rows and files of faxes received more than 30 days ago, keeping a
tombstone so their slugs answer 410, and the hidden rows of an import that
crashed or was stopped. Idempotent and safe while the API serves; the server
also runs it every PURGE_INTERVAL seconds.

Exit codes: 0 done, 2 bad arguments.`,
	async run(argv, io) {
		parseCommandArgs(argv, {}, 0);
		const slugs = await withStore(loadConfig(io.env), (store, storageDir) =>
			purgeExpired(store, storageDir, Math.floor(io.clock() / 1000)),
		);
		io.out(`purged ${plural(slugs.length, "fax", "faxes")} past retention`);
		return EXIT.ok;
	},
};
