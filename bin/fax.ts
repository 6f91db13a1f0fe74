import { createInterface } from "node:readline";
import { loadCommands, runCli } from "../lib/cli/index.ts";

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

const argv = process.argv.slice(2);
const exitCode = await runCli(await loadCommands(argv[0]), argv, {
	env: process.env,
	out: (text) => console.log(text),
	err: (text) => console.error(text),
	readStdin: readStdinUpTo,
	stdinLines: () => {
		process.stdin.setEncoding("latin1");
		return createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
	},
	clock: Date.now,
});
process.exit(exitCode);
