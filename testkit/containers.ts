import type { CommandOptions, Podman } from "./podman.ts";

/** A container's address on `network`, or on its only network; the host (root) reaches it directly. */
export async function containerIp(podman: Podman, name: string, network?: string): Promise<string> {
	const format =
		network === undefined
			? "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}"
			: `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`;
	const ip = await podman.ok(["inspect", "--format", format, name]);
	if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) throw new Error(`${name} has no address: "${ip}"`);
	return ip;
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await Bun.sleep(50);
	}
}

/** GET with the User-Agent the API asks every client for. */
export function get(
	url: string,
	headers: Record<string, string> = {},
	signal?: AbortSignal,
): Promise<Response> {
	return fetch(url, { headers: { "user-agent": "container-test", ...headers }, signal });
}

/** Milliseconds until `url` first answers at all. */
export async function untilAnswers(url: string, timeoutMs = 15_000): Promise<number> {
	const began = performance.now();
	await until(
		() =>
			get(url).then(
				() => true,
				() => false,
			),
		`${url} answering`,
		timeoutMs,
	);
	return performance.now() - began;
}

export async function exitCode(podman: Podman, name: string): Promise<number> {
	return Number(await podman.ok(["inspect", "--format", "{{.State.ExitCode}}", name]));
}

/** The server's last log line about its shutdown (bin/server.ts). */
export async function shutdownLine(podman: Podman, name: string): Promise<Record<string, unknown>> {
	const { stdout } = await podman.run(["logs", name]);
	const line = stdout
		.split("\n")
		.filter((text) => text.includes('"in_flight"'))
		.at(-1);
	if (line === undefined) throw new Error(`${name} logged no shutdown line:\n${stdout.slice(-2000)}`);
	return JSON.parse(line) as Record<string, unknown>;
}

/** Runs `command` in the store's environment to a successful end; how long it took. */
export async function timedCommand(
	podman: Podman,
	command: string[],
	options: CommandOptions = {},
): Promise<number> {
	const began = performance.now();
	const result = await podman.command(command, options);
	if (result.code !== 0) throw new Error(`${command.join(" ")}: exit ${result.code}: ${result.stderr}`);
	return performance.now() - began;
}
