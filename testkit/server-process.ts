import { join } from "node:path";
import { bunIn } from "./checkout-mount.ts";
import { childEnv } from "./child-env.ts";

const ROOT = join(import.meta.dir, "..");

export interface ServerProcessOptions {
	/** The script to run; `bin/server.ts`, as `npm start` does, unless named. */
	script?: string;
	/**
	 * "ignore" unless the caller reads it, or a descriptor the child writes to
	 * (the write end of a FIFO the test reads when it chooses: Bun reads a
	 * "pipe" into memory on its own, so that pipe never fills).
	 */
	stdout?: "pipe" | "ignore" | number;
	/** Standard output goes to this file instead, as a container runtime keeps the log. */
	logFile?: string;
	/** A command the server runs under (`strace -o …`), its arguments first. */
	wrapper?: string[];
	/**
	 * This checkout seen at another path (a bind mount another user can reach,
	 * testkit/checkout-mount.ts): the server and its Bun run from there.
	 */
	app?: string;
}

/** Runs a server script of this project on a free loopback port. */
export function spawnServer(env: Record<string, string>, options: ServerProcessOptions = {}) {
	const app = options.app ?? ROOT;
	return Bun.spawn([...(options.wrapper ?? []), bunIn(app), options.script ?? "bin/server.ts"], {
		cwd: app,
		env: childEnv({ HOST: "127.0.0.1", PORT: "0", ADMIN_PORT: "0", ...env }),
		// A file leaves no stream to read, as "ignore" does.
		stdout: (options.logFile === undefined ? (options.stdout ?? "ignore") : Bun.file(options.logFile)) as
			| "pipe"
			| "ignore",
		stderr: "pipe",
	});
}

/** Starts a server script and waits for the address it announces on standard error. */
export async function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}) {
	const script = options.script ?? "bin/server.ts";
	const child = spawnServer(env, options);
	const log = await untilListening(child.stderr, script);
	const url = /listening on (\S+)/.exec(log)?.[1] ?? "";
	const adminUrl = /\(admin (\S+)\)/.exec(log)?.[1] ?? "";
	return { child, url, adminUrl, log };
}

/** Reads a server's standard error until it announces its address; returns what it read. */
export async function untilListening(stderr: ReadableStream<Uint8Array>, what: string): Promise<string> {
	const reader = stderr.getReader();
	const decoder = new TextDecoder();
	let log = "";
	while (!log.includes("listening on")) {
		const { value, done } = await reader.read();
		if (done) throw new Error(`${what} exited: ${log}`);
		log += decoder.decode(value, { stream: true });
	}
	reader.releaseLock();
	return log;
}
