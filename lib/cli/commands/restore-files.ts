import { existsSync } from "node:fs";
import { restoreFiles } from "../../backup/index.ts";
import { loadConfig } from "../../config.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

export const restoreFilesCommand: Command = {
	name: "restore-files",
	summary: "write every fax's PDF and thumbnail from the database back to STORAGE_DIR",
	help: `Usage: fax restore-files

Writes the PDF and thumbnail of every fax, whose bytes the database keeps, to
STORAGE_DIR/faxes. The last step of deploy/replication/restore.sh, which runs
it on a restored database before the server starts; running it again rewrites
the same bytes.

Exit codes: 0 done, 1 failed (no database at DATABASE_PATH, a full disk,
permissions), 2 bad arguments.`,
	async run(argv, io) {
		parseCommandArgs(argv, {}, 0);
		const config = loadConfig(io.env);
		// Opening a missing SQLite file would make an empty one, and "0 faxes" would look like success.
		if (config.databaseUrl === null && !existsSync(config.databasePath)) {
			io.err(`restore-files: ${config.databasePath} does not exist; nothing to restore from`);
			return EXIT.failed;
		}
		const count = await withStore(config, (store, storageDir) => restoreFiles(store, storageDir));
		io.out(`restored the files of ${count} faxes`);
		return EXIT.ok;
	},
};
