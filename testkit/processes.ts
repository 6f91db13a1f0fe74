import { childEnv } from "./child-env.ts";
/** The ids of a process's direct children, from /proc (Linux). */
export async function childrenOf(pid: number): Promise<number[]> {
	const tasks = await Array.fromAsync(new Bun.Glob("*").scan({ cwd: `/proc/${pid}/task`, onlyFiles: false }));
	const lists = await Promise.all(
		tasks.map((task) =>
			Bun.file(`/proc/${pid}/task/${task}/children`)
				.text()
				.catch(() => ""),
		),
	);
	return lists.flatMap((list) => list.trim().split(/\s+/).filter(Boolean).map(Number));
}

/** Waits until `pid` has a child and returns it; fails after `timeoutMs`. */
export async function firstChildOf(pid: number, timeoutMs = 5000): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const [child] = await childrenOf(pid);
		if (child !== undefined) return child;
		if (Date.now() > deadline) throw new Error(`process ${pid} started no child within ${timeoutMs} ms`);
		await Bun.sleep(20);
	}
}

export interface CommandResult {
	code: number;
	stdout: string;
	stderr: string;
}

// The Debian package of each tool the tests run whose name is not the package's.
const PACKAGES: Record<string, string> = {
	promtool: "prometheus",
	amtool: "prometheus-alertmanager",
	tiffinfo: "libtiff-tools",
	tiffset: "libtiff-tools",
	tiff2pdf: "libtiff-tools",
	pdftoppm: "poppler-utils",
	"redis-cli": "redis-tools",
	ip: "iproute2",
};

/** Throws one line naming a tool that is not installed and its Debian package, not Bun's spawn error. */
export function requireTool(name: string, path = process.env.PATH ?? ""): void {
	if (name.includes("/") || Bun.which(name, { PATH: path }) !== null) return;
	throw new Error(
		`${name} is not installed: apt-get install ${PACKAGES[name] ?? name} (docs/development.md lists every tool; bash .ci/run installs them)`,
	);
}

/** Runs a command to its end with its output collected; the environment is `env` and PATH only. */
export function runCommand(
	command: string[],
	options: { cwd: string; env: Record<string, string>; stdin?: Uint8Array | string | Blob },
): Promise<CommandResult> {
	const { stdin } = options;
	requireTool(command[0] ?? "");
	const child = Bun.spawn(command, {
		cwd: options.cwd,
		env: childEnv(options.env),
		stdin: stdin === undefined ? "ignore" : stdin instanceof Blob ? stdin : new Blob([stdin]),
		stdout: "pipe",
		stderr: "pipe",
	});
	return outputOf(child);
}

/** Waits for a child spawned with piped stdout and stderr to end, its output collected. */
export async function outputOf(child: {
	stdout: ReadableStream<Uint8Array>;
	stderr: ReadableStream<Uint8Array>;
	exited: Promise<number>;
}): Promise<CommandResult> {
	const [stdout, stderr, code] = await Promise.all([
		new Response(child.stdout).text(),
		new Response(child.stderr).text(),
		child.exited,
	]);
	return { code, stdout, stderr };
}
