export interface WatchedProcess {
	/** Resolves once standard error shows the pattern: the process has reached that point. */
	printed(pattern: RegExp): Promise<void>;
	/** Waits for the exit; standard error also as lines. */
	result(): Promise<{ code: number; stdout: string; stderr: string; lines: string[] }>;
}

/**
 * A command run as a user runs it, whose standard error can be awaited line by
 * line, so a test acts when the process says it is ready rather than after a
 * guessed delay.
 */
export function spawnWatched(
	command: string[],
	options: { cwd: string; env: Record<string, string> },
): WatchedProcess {
	const child = Bun.spawn(command, { cwd: options.cwd, env: options.env, stdout: "pipe", stderr: "pipe" });
	let stderr = "";
	const waiters: { pattern: RegExp; resolve: () => void }[] = [];
	const reading = (async () => {
		const decoder = new TextDecoder();
		for await (const chunk of child.stderr) {
			stderr += decoder.decode(chunk, { stream: true });
			for (const waiter of waiters.filter(({ pattern }) => pattern.test(stderr))) waiter.resolve();
		}
	})();
	return {
		printed(pattern) {
			if (pattern.test(stderr)) return Promise.resolve();
			return new Promise((resolve) => waiters.push({ pattern, resolve }));
		},
		async result() {
			const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited, reading]);
			return { code, stdout, stderr, lines: stderr.trimEnd().split("\n") };
		},
	};
}
