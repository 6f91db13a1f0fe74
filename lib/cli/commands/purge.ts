import { loadConfig } from "../../config.ts";
import { purgeExpired } from "../../storage/index.ts";
import { plural } from "../../util/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

const SKIPPED = {
	standby: "purged nothing: the database is a standby, the primary's purge replays here",
	taken: "purged nothing: another process is purging the database now",
} as const;

export const purgeCommand: Command = {
	name: "purge",
	summary: "delete files and rows of faxes past the 30-day retention",
	help: `Usage: fax purge

Deletes the rows and files of faxes received more than 30 days ago, keeping a
tombstone so their slugs answer 410, and the hidden rows of an import that
crashed or was stopped. Idempotent and safe while the API serves; the server
also runs it every PURGE_INTERVAL seconds.

On PostgreSQL the database's part is done by one process of the cluster at a
time, on the primary: on a standby, or while another process purges, only this
host's stray files are deleted, and it says so.

Exit codes: 0 done, 2 bad arguments.`,
	async run(argv, io) {
		parseCommandArgs(argv, {}, 0);
		const outcome = await withStore(loadConfig(io.env), (store, storageDir) =>
			purgeExpired(store, storageDir, Math.floor(io.clock() / 1000)),
		);
		if ("skipped" in outcome) io.out(SKIPPED[outcome.skipped]);
		else io.out(`purged ${plural(outcome.removed.length, "fax", "faxes")} past retention`);
		return EXIT.ok;
	},
};
