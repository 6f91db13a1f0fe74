import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type CommandResult, outputOf } from "./processes.ts";
import { makeTempDir } from "./server.ts";

const ROOT = join(import.meta.dir, "..");
const INSTALL_HINT =
	"podman is not installed; install it with `apt-get update && apt-get install -y podman buildah runc netavark aardvark-dns mmdebstrap podman-compose`";

export interface CommandOptions {
	cwd?: string;
	env?: Record<string, string>;
	stdin?: string | Blob;
}

export interface Podman {
	/** The environment that points podman, buildah and podman-compose at this store. */
	env: Record<string, string>;
	/** `podman ARGS`, its output collected. */
	run(args: string[], stdin?: string | Blob): Promise<CommandResult>;
	/** `podman ARGS`; its standard output, trimmed, or an error with its standard error. */
	ok(args: string[], stdin?: string | Blob): Promise<string>;
	/** Any command in this store's environment (plus `env`), from the repository's root unless `cwd`. */
	command(command: string[], options?: CommandOptions): Promise<CommandResult>;
	/** Removes every container, image, volume and network of the store, then the store. */
	remove(): Promise<void>;
}

/**
 * The hard limit this process has for `name` in /proc/self/limits, at most
 * `cap`: a container may not ask for more (runc here also refused the host's
 * whole process limit, 96,365, where 32,768 passed).
 */
function hostLimit(name: string, cap: number): number {
	const line = readFileSync("/proc/self/limits", "utf8")
		.split("\n")
		.find((row) => row.startsWith(name));
	const hard = line?.slice(name.length).trim().split(/\s+/)[1];
	if (hard === undefined) throw new Error(`no "${name}" in /proc/self/limits`);
	return hard === "unlimited" ? cap : Math.min(Number(hard), cap);
}

/**
 * containers.conf for a root podman here: ulimits no higher than the host's
 * (raising them is refused), runc on cgroupfs (crun refuses hybrid cgroups),
 * netavark for container names in DNS, and every path podman writes inside
 * `dir`, so /etc, /run/libpod and the host's store stay untouched.
 */
function containersConf(dir: string): string {
	const nofile = hostLimit("Max open files", 20_000);
	const nproc = hostLimit("Max processes", 32_768);
	return `[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "${dir}/events.log"
tmp_dir = "${dir}/tmp"

[network]
network_backend = "netavark"
network_config_dir = "${dir}/networks"
`;
}

function storageConf(dir: string): string {
	return `[storage]
driver = "overlay"
graphroot = "${dir}/root"
runroot = "${dir}/runroot"
`;
}

/** A podman of its own: a throwaway store and settings in a temporary folder. */
export async function startPodman(): Promise<Podman> {
	if (Bun.which("podman") === null) throw new Error(INSTALL_HINT);
	const dir = makeTempDir();
	mkdirSync(join(dir, "networks"), { recursive: true });
	await Bun.write(join(dir, "containers.conf"), containersConf(dir));
	await Bun.write(join(dir, "storage.conf"), storageConf(dir));
	const env: Record<string, string> = {
		...(process.env as Record<string, string>),
		CONTAINERS_CONF: join(dir, "containers.conf"),
		CONTAINERS_STORAGE_CONF: join(dir, "storage.conf"),
	};
	const command = (argv: string[], { cwd = ROOT, env: extra = {}, stdin }: CommandOptions = {}) =>
		outputOf(
			Bun.spawn(argv, {
				cwd,
				env: { ...env, ...extra },
				stdin: stdin === undefined ? "ignore" : typeof stdin === "string" ? new Blob([stdin]) : stdin,
				stdout: "pipe",
				stderr: "pipe",
			}),
		);
	const run = (args: string[], stdin?: string | Blob) => command(["podman", ...args], { stdin });
	const ok = async (args: string[], stdin?: string | Blob) => {
		const result = await run(args, stdin);
		if (result.code !== 0) throw new Error(`podman ${args.join(" ")}: exit ${result.code}: ${result.stderr}`);
		return result.stdout.trim();
	};
	return {
		env,
		run,
		ok,
		command,
		async remove() {
			await run(["rm", "--all", "--force", "--time", "0"]);
			await run(["pod", "rm", "--all", "--force"]);
			await run(["network", "prune", "--force"]);
			// Unmounts the store's overlay before its files go.
			await run(["system", "reset", "--force"]);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
