import { importCommand } from "../lib/cli/commands/import.ts";
import { ingestCommand } from "../lib/cli/commands/ingest.ts";
import { purgeCommand } from "../lib/cli/commands/purge.ts";
import { removeCommand } from "../lib/cli/commands/remove.ts";
import { waitCommand } from "../lib/cli/commands/wait.ts";
import { runCli } from "../lib/cli/run-cli.ts";

async function readStdinUpTo(limit: number): Promise<Uint8Array> {
	const chunks: Uint8Array[] = [];
	let length = 0;
	for await (const chunk of Bun.stdin.stream()) {
		chunks.push(chunk);
		length += chunk.byteLength;
		if (length >= limit) break;
	}
	return Buffer.concat(chunks, Math.min(length, limit));
}

const commands = [importCommand, ingestCommand, removeCommand, purgeCommand, waitCommand];
const exitCode = await runCli(commands, process.argv.slice(2), {
	env: process.env,
	out: (text) => console.log(text),
	err: (text) => console.error(text),
	readStdin: readStdinUpTo,
	clock: Date.now,
});
process.exit(exitCode);
