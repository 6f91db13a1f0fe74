import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { childrenOf, firstChildOf } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { spawnServer, startServerProcess, untilListening } from "../../testkit/server-process.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = (name: string) => ({
	DATABASE_PATH: join(dir, `${name}.sqlite`),
	STORAGE_DIR: join(dir, name),
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
});

test("a second server on a port in use exits 1 with one line naming the settings", async () => {
	const first = await startServerProcess(env("first"));
	const port = new URL(first.url).port;
	try {
		const second = spawnServer({ ...env("second"), PORT: port });
		const [code, stderr] = await Promise.all([second.exited, new Response(second.stderr).text()]);
		expect(code).toBe(1);
		expect(stderr).toStartWith(`cannot listen on 127.0.0.1 port ${port} (HOST, PORT, REUSE_PORT): `);
		expect(stderr.split("\n")).toHaveLength(2);
	} finally {
		first.child.kill("SIGTERM");
		await first.child.exited;
	}
});

test("REUSE_PORT=1 on every instance lets them share the port; their admin ports stay their own", async () => {
	const first = await startServerProcess({ ...env("shared"), REUSE_PORT: "1" });
	const port = new URL(first.url).port;
	const second = await startServerProcess({ ...env("shared"), REUSE_PORT: "1", PORT: port });
	try {
		expect(second.url).toBe(first.url);
		expect(second.adminUrl).not.toBe(first.adminUrl);
		expect((await fetch(`${second.url}/api/faxes`)).status).toBe(200);
	} finally {
		for (const server of [first, second]) server.child.kill("SIGTERM");
		expect([await first.child.exited, await second.child.exited]).toEqual([0, 0]);
	}
});

test("one JSON access line per request on standard output; LOG_LEVEL=silent prints none", async () => {
	for (const [level, expected] of [
		["info", 2],
		["silent", 0],
	] as const) {
		const server = await startServerProcess({ ...env(`log-${level}`), LOG_LEVEL: level }, { stdout: "pipe" });
		await (await fetch(`${server.url}/api/faxes`)).arrayBuffer();
		await (await fetch(`${server.url}/nowhere`)).arrayBuffer();
		server.child.kill("SIGTERM");
		const [code, stdout] = await Promise.all([server.child.exited, new Response(server.child.stdout).text()]);
		expect(code).toBe(0);
		const lines =
			stdout === ""
				? []
				: stdout
						.trim()
						.split("\n")
						.map((line) => JSON.parse(line));
		expect(lines.filter((line) => line.msg === "request")).toHaveLength(expected);
		if (level === "silent") expect(stdout).toBe("");
	}
});

test("on a terminal the log is readable lines, not JSON", async () => {
	// script(1) gives the server a pseudo-terminal as standard output.
	const command = `${process.execPath} bin/server.ts`;
	const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
		cwd: ROOT,
		env: childEnv({ ...env("tty"), HOST: "127.0.0.1", PORT: "0", ADMIN_PORT: "0" }),
		stdin: "pipe",
		stdout: "pipe",
		stderr: "ignore",
	});
	const reader = child.stdout.getReader();
	const decoder = new TextDecoder();
	let output = "";
	const readUntil = async (text: string) => {
		while (!output.includes(text)) {
			const { value, done } = await reader.read();
			if (done) throw new Error(`output ended before "${text}": ${output}`);
			output += decoder.decode(value, { stream: true });
		}
	};
	await readUntil("listening on ");
	const url = /listening on (\S+)/.exec(output)?.[1] ?? "";
	await (await fetch(`${url}/api/faxes`)).arrayBuffer();
	await readUntil("/api/faxes");
	const server = await firstChildOf(child.pid);
	process.kill(server, "SIGTERM");
	await child.exited;
	const accessLine = output.split("\n").find((line) => line.includes("/api/faxes")) ?? "";
	expect(accessLine).toMatch(/INFO.*request.*"route":"\/api\/faxes","status":200/);
	expect(accessLine.trim()).not.toStartWith("{");
});

test("the container's command, run as PID 1 of its own PID namespace, drains on SIGTERM and exits 0", async () => {
	const dockerfile = await Bun.file(join(ROOT, "Dockerfile")).text();
	const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? "[]") as string[];
	expect(cmd).toEqual(["bun", "bin/server.ts"]);
	// PID 1 gets no signal it has no handler for: the kernel drops SIGTERM to a
	// PID 1 that only has the default action, as a container's would be.
	const child = Bun.spawn(["unshare", "--pid", "--fork", "--mount-proc", ...cmd], {
		cwd: ROOT,
		env: childEnv(
			{ ...env("pid1"), HOST: "127.0.0.1", PORT: "0", ADMIN_PORT: "0" },
			`${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
		),
		stdout: "ignore",
		stderr: "pipe",
	});
	const stderr = await untilListening(child.stderr, "the command");
	const url = /listening on (\S+)/.exec(stderr)?.[1] ?? "";
	expect((await fetch(`${url}/api/faxes`)).status).toBe(200);
	const server = await firstChildOf(child.pid);
	expect((await Bun.file(`/proc/${server}/status`).text()).match(/^NSpid:\s+\d+\s+(\d+)$/m)?.[1]).toBe("1");
	process.kill(server, "SIGTERM");
	expect(await child.exited).toBe(0);
	expect(await childrenOf(child.pid).catch(() => [])).toEqual([]);
});
