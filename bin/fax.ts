import { importCommand } from "../lib/cli/commands/import.ts";
import { ingestCommand } from "../lib/cli/commands/ingest.ts";
import { purgeCommand } from "../lib/cli/commands/purge.ts";
import { removeCommand } from "../lib/cli/commands/remove.ts";
import { waitCommand } from "../lib/cli/commands/wait.ts";
import { runCli } from "../lib/cli/run-cli.ts";

const commands = [importCommand, ingestCommand, removeCommand, purgeCommand, waitCommand];
const exitCode = await runCli(commands, process.argv.slice(2), {
	env: process.env,
	out: (text) => console.log(text),
	err: (text) => console.error(text),
	readStdin: async () => new Uint8Array(await Bun.stdin.arrayBuffer()),
	clock: Date.now,
});
process.exit(exitCode);
