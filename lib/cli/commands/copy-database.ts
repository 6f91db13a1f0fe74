import { existsSync } from "node:fs";
import { loadConfig } from "../../config.ts";
import { copyDatabase, databaseDigest, FaxStore, openEngine } from "../../db/index.ts";
import { type Command, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { commandLocation } from "../open-store.ts";

export const copyDatabaseCommand: Command = {
	name: "copy-database",
	summary: "copy a SQLite database (a `fax backup`) into the empty PostgreSQL database of DATABASE_URL",
	help: `Usage: DATABASE_URL=postgres://... fax copy-database FILE

Copies every fax, its PDF and thumbnail, the tombstones of removed faxes, the
receivers' receipt keys, the transmission reports and the imports of the
SQLite database FILE into the PostgreSQL database DATABASE_URL names, which
must hold no fax yet. Then it reads both back and compares, table by table,
the number of rows and a SHA-256 of every value, files included, and prints
them. Copy from a backup (\`fax backup DIR\`, then DIR/faxes.sqlite): it is
consistent while the old site runs, and holds the files only its disk had
(docs/operations/cluster.md, "Moving a site to PostgreSQL").

Exit codes: 0 copied and the same, 1 failed (the target is not empty, the
copy differs, a connection), 2 bad arguments or DATABASE_URL not set.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const file = positionals[0] ?? "";
		const config = loadConfig(io.env);
		if (config.databaseUrl === null)
			throw new UsageError("DATABASE_URL must name the PostgreSQL database to copy into");
		if (!existsSync(file)) throw new UsageError(`no SQLite database at ${file}`);
		const source = await openEngine({ ...config, databasePath: file, databaseUrl: null });
		const target = await openEngine(commandLocation(config));
		try {
			if (!(await new FaxStore(target).isEmpty())) {
				io.err("copy-database: the PostgreSQL database holds faxes already; nothing was copied");
				return EXIT.failed;
			}
			await copyDatabase(source, target);
			const [copied, read] = [await databaseDigest(source), await databaseDigest(target)];
			for (const [table, { rows, sha256 }] of Object.entries(copied)) {
				const same = read[table]?.rows === rows && read[table]?.sha256 === sha256;
				io.out(
					`${table}: ${rows} rows, sha256 ${sha256}${same ? "" : `, DIFFERS in PostgreSQL: ${JSON.stringify(read[table])}`}`,
				);
			}
			if (JSON.stringify(copied) !== JSON.stringify(read)) return EXIT.failed;
			io.out("copied and verified");
			return EXIT.ok;
		} finally {
			await source.close();
			await target.close();
		}
	},
};
