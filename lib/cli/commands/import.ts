import { readFile } from "node:fs/promises";
import { loadConfig } from "../../config.ts";
import { DatabaseBusyError, ImportAbandonedError } from "../../db/index.ts";
import { type ImportResult, type InvalidFile, importFaxes, MAX_FUTURE_SECONDS } from "../../import/index.ts";
import { errorMessage, plural } from "../../util/index.ts";
import { formatSeconds } from "../../wait/index.ts";
import { type Command, EXIT, parseCommandArgs } from "../command.ts";
import { liveImportProgress } from "../import-progress.ts";
import { withStore } from "../open-store.ts";

const HELP = `Usage: fax import FILE.json

Inserts faxes from a JSON array of records:
  {"slug"?, "source", "sender", "received_at", "page_count", "file_size", "removed"?}
  slug         optional: fax_ followed by letters and digits; a new one if absent
  source       "phone" or "email"
  sender       the raw sender (at most 255 characters), or null for no sender ID
  received_at  ISO 8601 with an offset, like 2026-11-21T10:00:00Z; at most
               ${MAX_FUTURE_SECONDS / 60} minutes after this machine's clock
  page_count   1 or more, or null for a fax that could not be processed
  file_size    the PDF's size in bytes, or null with page_count null
  removed      optional: true records a removed fax (its slug answers 410)
Every record is checked first; one bad record and nothing of the file is
written, and every problem is listed (the first 50). A large file is written
in short transactions, so \`fax ingest\` and the other commands run meanwhile,
and shows all at once at the end; an import that fails or is stopped
(Ctrl-C, SIGTERM) shows nothing, and what it wrote is deleted. On a terminal
the progress shows on standard error; the summary goes to standard output.

Exit codes: 0 imported, 1 the file is unreadable or has invalid records, the
database could not be written or the import was stopped (nothing was
imported), 2 bad arguments.`;

/** The operator stopped the import (Ctrl-C, or `kill`) while it wrote. */
class ImportStoppedError extends Error {}

/**
 * Turns SIGINT and SIGTERM into an abort for as long as the import runs, so
 * that it deletes what it wrote before the process ends.
 */
function stopOnSignals(): { signal: AbortSignal; release(): void } {
	const controller = new AbortController();
	const handlers = (["SIGINT", "SIGTERM"] as const).map((name) => {
		const handler = () => controller.abort(new ImportStoppedError(`stopped by ${name}`));
		process.once(name, handler);
		return [name, handler] as const;
	});
	return {
		signal: controller.signal,
		release: () => {
			for (const [name, handler] of handlers) process.off(name, handler);
		},
	};
}

/** The system's reason a file cannot be read, like "no such file or directory (ENOENT)". */
function readFailure(error: unknown): string {
	const message = errorMessage(error);
	const code = (error as { code?: unknown }).code;
	const reason = /^[A-Z]+: ([^,]+)/.exec(message)?.[1] ?? message;
	return typeof code === "string" ? `${reason} (${code})` : reason;
}

/** Write failures an operator can act on; anything else is a bug, for the command runner. */
function writeFailure(error: unknown): string | null {
	if (
		error instanceof DatabaseBusyError ||
		error instanceof ImportAbandonedError ||
		error instanceof ImportStoppedError
	) {
		return error.message;
	}
	const code = (error as { code?: unknown }).code;
	if (!(error instanceof Error) || error.name !== "SQLiteError") return null;
	if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
		return `a slug of this file was taken by another writer meanwhile (${error.message})`;
	}
	return `the database cannot be written (DATABASE_PATH): ${error.message}`;
}

function reportInvalid(invalid: InvalidFile, say: (line: string) => void): void {
	for (const error of invalid.errors) say(error);
	const shownRecords = new Set(invalid.errors.map((error) => /^record (\d+):/.exec(error)?.[1])).size;
	const moreProblems = invalid.problemCount - invalid.errors.length;
	if (moreProblems > 0) {
		const moreRecords = invalid.invalidRecords - shownRecords;
		say(
			`and ${plural(moreProblems, "more problem")}${moreRecords > 0 ? ` in ${plural(moreRecords, "more record")}` : ""}`,
		);
	}
	say(
		invalid.invalidRecords > 0
			? `invalid records: ${invalid.invalidRecords} of ${invalid.records}; nothing was imported`
			: "nothing was imported",
	);
}

export const importCommand: Command = {
	name: "import",
	summary: "insert faxes from a JSON array of records, all or nothing",
	help: HELP,
	async run(argv, io) {
		const { positionals } = parseCommandArgs(argv, {}, 1);
		const path = positionals[0] ?? "";
		const say = (line: string) => io.err(`import: ${path}: ${line}`);
		const config = loadConfig(io.env);
		const started = io.clock();
		let text: string;
		try {
			text = await readFile(path, "utf8");
		} catch (error) {
			say(`cannot be read: ${readFailure(error)}`);
			return EXIT.failed;
		}
		let document: unknown;
		try {
			document = JSON.parse(text);
		} catch (error) {
			say(`not valid JSON (${errorMessage(error)}); nothing was imported`);
			return EXIT.failed;
		}
		// The live line only on a terminal: a log or a pipe gets the summary alone.
		const live = process.stderr.isTTY ? liveImportProgress(process.stderr, io.clock) : null;
		const stop = stopOnSignals();
		let result: ImportResult;
		try {
			result = await withStore(config, (store) =>
				importFaxes(store, document, Math.floor(io.clock() / 1000), {
					onProgress: (step) => live?.report(step),
					signal: stop.signal,
				}),
			);
		} catch (error) {
			const failure = writeFailure(error);
			if (failure === null) throw error;
			say(`${failure}; nothing was imported`);
			return EXIT.failed;
		} finally {
			stop.release();
			live?.finish();
		}
		if (!result.ok) {
			reportInvalid(result, say);
			return EXIT.failed;
		}
		const { imported, removed, longestTransactionMs } = result.summary;
		io.out(
			`imported ${plural(imported, "fax", "faxes")} and ${plural(removed, "removed fax", "removed faxes")} from ${path} in ${formatSeconds(io.clock() - started)} (longest write transaction ${Math.round(longestTransactionMs)} ms)`,
		);
		return EXIT.ok;
	},
};
