import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { realClockEnv } from "./child-env.ts";
import { freePort } from "./ports.ts";
import { dieWithParent } from "./redis-server.ts";

/** Debian's PostgreSQL 15 (.ci/run installs postgresql-15). */
export const POSTGRES_BIN = "/usr/lib/postgresql/15/bin";

export interface PostgresServer {
	port: number;
	/** A superuser's URL of the server's database `name` (postgres unless given). */
	url(name?: string): string;
	/** A new empty database on this server; returns its URL. */
	createDatabase(): Promise<string>;
	/** Stops the server (a fast shutdown) and removes its folder. */
	stop(): Promise<void>;
}

// PostgreSQL refuses to run as root: as root the tests run it as Debian's
// postgres user, otherwise as themselves.
const asUser =
	process.getuid?.() === 0 ? ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] : [];
const user = process.getuid?.() === 0 ? "postgres" : userInfo().username;

async function run(command: string[]): Promise<void> {
	const child = Bun.spawn([...asUser, ...command], { env: realClockEnv(), stdout: "pipe", stderr: "pipe" });
	if ((await child.exited) !== 0) {
		throw new Error(
			`${command.join(" ")} exited with ${child.exitCode}: ${await new Response(child.stderr).text()}`,
		);
	}
}

async function ready(port: number, dir: string): Promise<boolean> {
	const child = Bun.spawn([join(POSTGRES_BIN, "pg_isready"), "-q", "-h", dir, "-p", String(port)], {
		stdout: "ignore",
		stderr: "ignore",
	});
	return (await child.exited) === 0;
}

let databases = 0;

/**
 * A throwaway PostgreSQL 15 server on a free loopback port, its data in a
 * temp folder (initdb), without fsync: the tests ask for its answers, not
 * its durability. `settings` are more `-c name=value` of the test's.
 */
export async function startPostgres(settings: string[] = []): Promise<PostgresServer> {
	const dir = mkdtempSync(join(tmpdir(), "testfax-pg-"));
	if (asUser.length > 0)
		chownSync(dir, Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString()), -1);
	const data = join(dir, "data");
	await run([
		join(POSTGRES_BIN, "initdb"),
		"-D",
		data,
		"-U",
		user,
		"--auth=trust",
		"-E",
		"UTF8",
		"--locale=C",
	]);
	const port = await freePort();
	const options = ["listen_addresses=127.0.0.1", `unix_socket_directories=${dir}`, "fsync=off", ...settings];
	const child = Bun.spawn(
		[
			...dieWithParent,
			...asUser,
			join(POSTGRES_BIN, "postgres"),
			"-D",
			data,
			"-p",
			String(port),
			...options.flatMap((o) => ["-c", o]),
		],
		{ env: realClockEnv(), stdin: "ignore", stdout: "ignore", stderr: "pipe" },
	);
	const deadline = Date.now() + 30_000;
	while (!(await ready(port, dir))) {
		if (child.exitCode !== null || Date.now() > deadline) {
			child.kill("SIGKILL");
			rmSync(dir, { recursive: true, force: true });
			throw new Error(`postgres did not start on port ${port}: ${await new Response(child.stderr).text()}`);
		}
		await Bun.sleep(50);
	}
	const url = (name = "postgres") => `postgres://${user}@127.0.0.1:${port}/${name}`;
	return {
		port,
		url,
		async createDatabase() {
			const name = `faxes_${process.pid}_${++databases}`;
			await run([
				join(POSTGRES_BIN, "psql"),
				"-h",
				dir,
				"-p",
				String(port),
				"-U",
				user,
				"-d",
				"postgres",
				"-qc",
				`CREATE DATABASE ${name}`,
			]);
			return url(name);
		},
		async stop() {
			child.kill("SIGINT");
			await child.exited;
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
