import { type ParseArgsConfig, parseArgs } from "node:util";
import { isSlugShape } from "../fax/index.ts";
import { errorMessage } from "../util/index.ts";

/** What a command may touch of its process, injectable for tests. */
export interface CommandIO {
	env: Record<string, string | undefined>;
	out: (text: string) => void;
	err: (text: string) => void;
	/** Standard input, at most `limit` bytes: whatever is past them is not read. */
	readStdin: (limit: number) => Promise<Uint8Array>;
	/** Standard input line by line as it comes (latin1, as HylaFAX writes); absent where it cannot be read so. */
	stdinLines?: () => AsyncIterable<string>;
	/** Milliseconds since the epoch. */
	clock: () => number;
}

/** Exit codes shared by every command; a command may document more of its own. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Bad arguments: the message is printed with a pointer to `--help`, and exit code 2. */
export class UsageError extends Error {}

/** The one SLUG argument of a command; a UsageError when it is not a fax slug's shape. */
export function slugArgument(argv: string[]): string {
	const { positionals } = parseCommandArgs(argv, {}, 1);
	const slug = positionals[0] ?? "";
	if (!isSlugShape(slug))
		throw new UsageError(`not a fax slug: ${slug} (expected fax_ and letters or digits)`);
	return slug;
}

export interface Command {
	name: string;
	summary: string;
	/** Full help text, printed for `--help`; a usage error points to it. */
	help: string;
	run(argv: string[], io: CommandIO): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util's refusal, cut to what was wrong: its advice on positionals that start with "-" fits no command here. */
function parseArgsMessage(error: unknown): string {
	const unknown = /^Unknown option '([^']+)'/.exec(errorMessage(error));
	return unknown ? `unknown option ${unknown[1]}` : errorMessage(error);
}

/** node:util parseArgs, with its errors turned into UsageErrors. */
export function parseCommandArgs<O extends Options>(argv: string[], options: O, positionals: number) {
	let parsed: ReturnType<
		typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
	>;
	try {
		parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
	} catch (error) {
		throw new UsageError(parseArgsMessage(error));
	}
	if (parsed.positionals.length !== positionals) {
		throw new UsageError(
			positionals === 0
				? `unexpected argument: ${parsed.positionals[0]}`
				: `expected ${positionals} argument${positionals > 1 ? "s" : ""}, got ${parsed.positionals.length}`,
		);
	}
	return parsed;
}
