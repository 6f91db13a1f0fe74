import { Socket } from "node:net";
import { realClockEnv } from "./child-env.ts";
import { freePort } from "./ports.ts";

export interface RedisServer {
	url: string;
	port: number;
	/** True when REDIS_URL named the server; it cannot be stopped or restarted. */
	external: boolean;
	/** Stops the server (SIGTERM unless another signal is named), to simulate an outage. */
	stop(signal?: NodeJS.Signals): Promise<void>;
	/** Stops the server if it runs, then starts it again on the same port. */
	restart(): Promise<void>;
	/** Tear-down: stops a server this helper started, leaves an external one alone. */
	close(): Promise<void>;
}

const INSTALL_HINT =
	"redis-server is not installed; install it with `apt-get update && apt-get install -y redis-server`";
const START_TIMEOUT_MS = 5000;

function ping(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = new Socket();
		const finish = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(200, () => finish(false));
		socket.once("error", () => finish(false));
		socket.once("data", (data) => finish(data.toString().startsWith("+PONG")));
		socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
	});
}

function externalServer(url: string): RedisServer {
	const refuse = () =>
		Promise.reject(
			new Error(
				`this test stops and restarts Redis, which is impossible for REDIS_URL=${url}; unset REDIS_URL to let the tests start their own redis-server`,
			),
		);
	return {
		url,
		port: Number(new URL(url).port || 6379),
		external: true,
		stop: refuse,
		restart: refuse,
		close: () => Promise.resolve(),
	};
}

// bun test fires no "exit" event, so a run that is killed or crashes cannot
// stop its servers itself; where util-linux's setpriv exists, the kernel does.
const setpriv = Bun.which("setpriv");
export const dieWithParent = setpriv ? [setpriv, "--pdeathsig", "TERM"] : [];

async function spawnUntilPong(
	binary: string,
	port: number,
): Promise<Bun.Subprocess<"ignore", "pipe", "pipe">> {
	const child = Bun.spawn(
		[
			...dieWithParent,
			binary,
			"--port",
			String(port),
			"--bind",
			"127.0.0.1",
			"--save",
			"",
			"--appendonly",
			"no",
		],
		{ env: realClockEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
	);
	const deadline = Date.now() + START_TIMEOUT_MS;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) {
			const output = `${await new Response(child.stdout).text()}${await new Response(child.stderr).text()}`;
			throw new Error(`redis-server exited with ${child.exitCode} on port ${port}:\n${output}`);
		}
		if (await ping(port)) return child;
		await Bun.sleep(20);
	}
	child.kill("SIGKILL");
	throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms`);
}

/**
 * Starts a throwaway redis-server on a free loopback port, without
 * persistence, or uses the server named by REDIS_URL when that is set.
 */
export async function startRedisServer(): Promise<RedisServer> {
	const url = process.env.REDIS_URL;
	if (url) return externalServer(url);

	// Bun.which() reads PATH as it was at start-up unless given one.
	const binary = Bun.which("redis-server", { PATH: process.env.PATH ?? "" });
	if (binary === null) throw new Error(INSTALL_HINT);

	const port = await freePort();
	let child: Bun.Subprocess | null = await spawnUntilPong(binary, port);

	const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
		if (child === null) return;
		const running = child;
		child = null;
		running.kill(signal);
		await running.exited;
	};
	return {
		url: `redis://127.0.0.1:${port}`,
		port,
		external: false,
		stop,
		restart: async () => {
			await stop();
			child = await spawnUntilPong(binary, port);
		},
		close: () => stop(),
	};
}
