import { loadConfig } from "../../config.ts";
import { DatabaseBusyError } from "../../db/index.ts";
import { importFaxes } from "../../import/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { withStore } from "../open-store.ts";

const MAX_ERRORS_SHOWN = 50;

export const importCommand: Command = {
	name: "import",
	summary: "insert faxes from a JSON array of records, all or nothing",
	help: `Usage: fax import FILE.json

Inserts faxes from a JSON array of records:
  {"slug"?, "source", "sender", "received_at", "page_count", "file_size", "removed"?}
sender is the raw sender or null; received_at is ISO 8601 with an offset;
page_count and file_size are both null for a fax that could not be processed;
"removed": true records a removed fax (its slug answers 410).
Every record is checked first; one bad record and nothing of the file is written.

Exit codes: 0 imported, 1 the file is unreadable or has invalid records, 2 bad arguments.`,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const path = positionals[0] ?? "";
		let document: unknown;
		try {
			document = JSON.parse(await Bun.file(path).text());
		} catch (error) {
			const reason = error instanceof SyntaxError ? `not valid JSON (${error.message})` : "cannot be read";
			io.err(`import: ${path}: ${reason}`);
			return EXIT.failed;
		}
		let result: Awaited<ReturnType<typeof importFaxes>>;
		try {
			result = await withStore(loadConfig(io.env), (store) =>
				importFaxes(store, document, Math.floor(io.clock() / 1000)),
			);
		} catch (error) {
			if (!(error instanceof DatabaseBusyError)) throw error;
			io.err(`import: ${path}: ${error.message}; nothing was imported`);
			return EXIT.failed;
		}
		if (!result.ok) {
			for (const error of result.errors.slice(0, MAX_ERRORS_SHOWN)) io.err(`import: ${path}: ${error}`);
			if (result.errors.length > MAX_ERRORS_SHOWN) {
				io.err(`import: ${path}: and ${result.errors.length - MAX_ERRORS_SHOWN} more invalid records`);
			}
			io.err(`import: ${path}: nothing was imported`);
			return EXIT.failed;
		}
		const { imported, removed } = result.summary;
		io.out(`imported ${imported} faxes and ${removed} removed faxes from ${path}`);
		return EXIT.ok;
	},
};
