import { join } from "node:path";

// A serving instance never processes a document, so it does not load the
// pipeline into its own memory: `fax check` does, in a process of its own.
const FAX = join(import.meta.dir, "../bin/fax.ts");
// A fault is asked again after this long: the operator may have fixed it.
const RECHECK_MS = 30_000;
const PREFIX = "fax check: ";

async function runCheck(): Promise<string | null> {
	try {
		const child = Bun.spawn([process.execPath, FAX, "check"], { stdout: "ignore", stderr: "pipe" });
		const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
		if (code === 0) return null;
		const line = stderr.trim().split("\n")[0] ?? "";
		return line.startsWith(PREFIX) ? line.slice(PREFIX.length) : `fax check exited ${code}: ${line}`;
	} catch (error) {
		return `fax check cannot run: ${error instanceof Error ? error.message : String(error)}`;
	}
}

/**
 * What `fax check` says of the document pipeline: null when it loads, else
 * the part that does not. Asked on first use; a success is kept for good,
 * a fault for RECHECK_MS.
 */
export function createPipelineProbe(clock: () => number = Date.now): () => Promise<string | null> {
	let answer: Promise<string | null> | undefined;
	let faultAt = 0;
	return async () => {
		answer ??= runCheck();
		const fault = await answer;
		if (fault === null) return null;
		faultAt ||= clock();
		if (clock() - faultAt > RECHECK_MS) {
			answer = undefined;
			faultAt = 0;
		}
		return fault;
	};
}
