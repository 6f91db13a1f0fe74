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

// Bun.stdin, not node:readline over process.stdin: in Bun 1.4.5 a worker's
// process.stdin is fd 0 too, and the PostgreSQL bridge's worker took the
// data from under the main thread (docs/decisions.md, Workarounds). Latin-1,
// one byte a character, as ingest reads a session log.
async function* readStdinLines(): AsyncGenerator<string> {
	let rest = "";
	for await (const chunk of Bun.stdin.stream()) {
		const lines = (rest + Buffer.from(chunk).toString("latin1")).split("\n");
		rest = lines.pop() ?? "";
		yield* lines;
	}
	if (rest !== "") yield rest;
}

const argv = process.argv.slice(2);
const exitCode = await runCli(await loadCommands(argv[0]), argv, {
	env: process.env,
	out: (text) => console.log(text),
	err: (text) => console.error(text),
	readStdin: readStdinUpTo,
	stdinLines: readStdinLines,
	clock: Date.now,
});
process.exit(exitCode);
