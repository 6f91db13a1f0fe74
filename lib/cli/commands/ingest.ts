import { type Config, loadConfig } from "../../config.ts";
import { UnconfirmedCommitError } from "../../db/index.ts";
import { MAX_EMAIL_BYTES, PipelineUnavailableError } from "../../document/index.ts";
import { createFaxPresenter, parseOffsetDateTime } from "../../fax/index.ts";
import { type Command, type CommandIO, EXIT, parseCommandArgs, UsageError } from "../command.ts";
import { withStore } from "../open-store.ts";
import { storeReceived } from "../store-received.ts";

/** The fax a receipt key became, as the API shows it, or that it was removed since. */
function repeatJson(config: Config, slug: string): Promise<string> {
	return withStore(config, async (store) => {
		const found = await store.lookup(slug, 0);
		if (found.state !== "found") return JSON.stringify({ slug, removed: true });
		return JSON.stringify(createFaxPresenter(config)(found.fax));
	});
}

/** Exit code of a fax that was recorded, but as not processable. */
const EXIT_NOT_PROCESSABLE = 3;

/**
 * The file, or standard input for "-". One byte past the limit is enough to
 * know the input is too large; an email may be larger than a document (its
 * attachment in base64).
 */
function readInput(input: string, io: CommandIO): Promise<Uint8Array> {
	if (input === "-") return io.readStdin(MAX_EMAIL_BYTES + 1);
	return Bun.file(input)
		.slice(0, MAX_EMAIL_BYTES + 1)
		.bytes();
}

/** --received-at as Unix seconds; undefined when not given. */
function receivedAtOption(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const parsed = parseOffsetDateTime(value);
	if (parsed === null) {
		throw new UsageError("--received-at must be ISO 8601 with an offset, like 2026-11-21T10:00:00Z");
	}
	return parsed;
}

/** Why nothing was acknowledged, and what the operator or the receiver does next. */
function failureLine(error: Error, config: Config): string {
	if (error instanceof PipelineUnavailableError)
		return `${error.message}; nothing was recorded: fix the host (\`fax check\`), then ingest again`;
	if (error instanceof UnconfirmedCommitError)
		return `${error.message}; hand the fax over again under the same receipt key`;
	const database = config.databaseUrl === null ? "DATABASE_PATH" : "DATABASE_URL";
	return `the fax cannot be stored (STORAGE_DIR, ${database}): ${error.message}; nothing was recorded`;
}

export const ingestCommand: Command = {
	name: "ingest",
	summary: "process a received PDF, TIFF or email into a listed fax",
	help: `Usage: fax ingest FILE|- --source phone|email [--sender S] [--received-at T] [--receipt-key K] [--json]

Processes a received fax and adds it to the API:
  a PDF, a single- or multi-page TIFF (also CCITT G3/G4 fax compression), or an
  RFC 822 email (.eml, or - for standard input, so a mail server can pipe into
  it) whose first PDF/TIFF attachment is the fax.
Stores STORAGE_DIR/faxes/<slug>.pdf (a TIFF becomes a PDF, one page per frame)
and STORAGE_DIR/faxes/<slug>-thumb.jpg (page 1, 600 px wide), then inserts the
fax; it is listed from that moment.

Options:
  --source phone|email  how the fax arrived (required)
  --sender S            the raw sender: number, station ID or email address;
                        for an email, defaults to its From address
  --received-at T       ISO 8601 with an offset, like 2026-11-21T10:00:00Z;
                        defaults to now, or to the Date of an email when
                        that lies in the last 5 minutes (a device clock
                        running slow would hide the test from clients)
  --receipt-key K       what the receiver names this fax by (a Message-ID, a
                        queue file): handed over again under the same key, the
                        fax is not listed twice; the slug it became is printed
                        and "already listed" goes to standard error (exit 0)
  --json                print the fax as the API shows it instead of its slug;
                        one already listed under the receipt key too, and
                        {"slug": S, "removed": true} for one removed since

A file that cannot be processed (corrupt, empty, encrypted, not a fax format,
an email without attachment) is still recorded, as a fax that could not be
processed; the reason goes to standard error.

Exit codes: 0 processed, 3 recorded as not processable, 1 failed (the input
cannot be read, the files cannot be written, or a part of the document
pipeline does not load on this host, named on standard error: nothing was
recorded; or, on PostgreSQL, no standby confirmed the commit within 10 s: it
may be listed once one does, and is acknowledged when handed over again under
the same receipt key), 2 bad arguments.`,
	async run(argv, io) {
		const { values, positionals } = parseCommandArgs(
			argv,
			{
				source: { type: "string" },
				sender: { type: "string" },
				"received-at": { type: "string" },
				"receipt-key": { type: "string" },
				json: { type: "boolean" },
			},
			1,
		);
		const input = positionals[0] ?? "";
		const source = values.source;
		if (source !== "phone" && source !== "email") throw new UsageError("--source must be phone or email");
		const receivedAt = receivedAtOption(values["received-at"]);
		const config = loadConfig(io.env);

		const bytes = await readInput(input, io).catch(() => null);
		if (bytes === null) {
			io.err(`ingest: ${input}: cannot be read; nothing was recorded`);
			return EXIT.failed;
		}
		const received = await storeReceived(
			config,
			{
				bytes,
				filename: input === "-" ? null : input,
				source,
				sender: values.sender,
				receivedAt,
				receiptKey: values["receipt-key"],
			},
			io.clock(),
		);
		if (received instanceof Error) {
			io.err(`ingest: ${failureLine(received, config)}`);
			return EXIT.failed;
		}
		if (received.repeatOf !== undefined) {
			io.out(values.json ? await repeatJson(config, received.repeatOf) : received.repeatOf);
			io.err(`ingest: already listed as ${received.repeatOf} (receipt key ${values["receipt-key"]})`);
			return EXIT.ok;
		}
		io.out(values.json ? JSON.stringify(createFaxPresenter(config)(received.fax)) : received.fax.slug);
		if (received.reason !== undefined) {
			io.err(`ingest: ${input === "-" ? "standard input" : input}: not processable: ${received.reason}`);
			return EXIT_NOT_PROCESSABLE;
		}
		return EXIT.ok;
	},
};
