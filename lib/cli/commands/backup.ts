import { writeBackup } from "../../backup/index.ts";
import { loadConfig } from "../../config.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

export const backupCommand: Command = {
	name: "backup",
	summary: "write a consistent copy of every fax, its files and receipts into DIR",
	help: `Usage: fax backup DIR

Writes DIR/faxes.sqlite: a consistent copy of the database, which holds every
fax's PDF and thumbnail, the tombstones of removed faxes and the receivers'
receipt keys. The server, the receivers and the purge carry on meanwhile.
Files that only the disk held (an import's) are copied into the database
first. deploy/replication/restore.sh DIR takes it back
(docs/operations/replication.md). Run it before an upgrade.

Exit codes: 0 written, 1 failed (DIR holds a backup already, a full disk),
2 bad arguments.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const dir = positionals[0] ?? "";
		const { path, missing } = await withStore(loadConfig(io.env), (store, storageDir) =>
			writeBackup(store, storageDir, dir),
		);
		if (missing > 0) io.err(`backup: ${missing} listed faxes have no files on disk; backed up without them`);
		io.out(`backup written to ${path}`);
		return EXIT.ok;
	},
};
