import { ConfigError } from "../config.ts";
import { errorMessage } from "../util/index.ts";
import { type Command, type CommandIO, EXIT, UsageError } from "./command.ts";

function overview(commands: Command[]): string {
	const width = Math.max(...commands.map((command) => command.name.length));
	const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
	return `Usage: fax <command> [arguments]   (npm run fax -- ..., or npx bun run fax ...)

Operator commands of testfax-api; the public API stays read-only.

Commands:
${lines.join("\n")}

Run "fax <command> --help" for a command's arguments and exit codes.`;
}

/** Dispatches `fax <command> ...`; returns the process exit code. */
export async function runCli(commands: Command[], argv: string[], io: CommandIO): Promise<number> {
	const [name, ...rest] = argv;
	if (name === undefined || name === "--help" || name === "-h" || name === "help") {
		(name === undefined ? io.err : io.out)(overview(commands));
		return name === undefined ? EXIT.usage : EXIT.ok;
	}
	const command = commands.find((candidate) => candidate.name === name);
	if (command === undefined) {
		io.err(`fax: unknown command "${name}"\nRun "fax --help" for the commands.`);
		return EXIT.usage;
	}
	if (rest.includes("--help") || rest.includes("-h")) {
		io.out(command.help);
		return EXIT.ok;
	}
	try {
		return await command.run(rest, io);
	} catch (error) {
		if (error instanceof UsageError) {
			io.err(`fax ${name}: ${error.message}\nRun "fax ${name} --help" for its arguments.`);
			return EXIT.usage;
		}
		if (error instanceof ConfigError) {
			io.err(`configuration error: ${error.message}`);
			return EXIT.usage;
		}
		// Every failure is one line for the operator, never a stack trace.
		io.err(`fax ${name}: ${errorMessage(error)}`);
		return EXIT.failed;
	}
}
