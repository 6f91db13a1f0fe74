import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
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
export const asUser =
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

/** A temp folder the PostgreSQL processes may write (owned by postgres when the tests run as root). */
export function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "testfax-pg-"));
	if (asUser.length > 0) {
		chownSync(dir, Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString()), -1);
	}
	return dir;
}

/** Runs postgres on the data in `dir`/data until it answers, as the test's server. */
async function launch(dir: string, settings: string[]): Promise<PostgresServer> {
	const port = await freePort();
	const options = ["listen_addresses=127.0.0.1", `unix_socket_directories=${dir}`, "fsync=off", ...settings];
	const child = Bun.spawn(
		[
			// After the change of user, which clears a parent-death signal.
			...asUser,
			...dieWithParent,
			join(POSTGRES_BIN, "postgres"),
			"-D",
			join(dir, "data"),
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

/**
 * A throwaway PostgreSQL 15 server on a free loopback port, its data in a
 * temp folder (initdb), without fsync: the tests ask for its answers, not
 * its durability. `settings` are more `-c name=value` of the test's.
 */
export async function startPostgres(settings: string[] = []): Promise<PostgresServer> {
	if (!existsSync(join(POSTGRES_BIN, "initdb"))) {
		throw new Error(
			"PostgreSQL 15 is not installed: apt-get install postgresql-15 (docs/development.md lists every tool; bash .ci/run installs them)",
		);
	}
	const dir = tempDir();
	await run([
		join(POSTGRES_BIN, "initdb"),
		"-D",
		join(dir, "data"),
		"-U",
		user,
		"--auth=trust",
		"-E",
		"UTF8",
		"--locale=C",
	]);
	return launch(dir, settings);
}

/**
 * A hot standby of `primary`: a base backup streamed from it (pg_basebackup
 * -R writes the primary's address and standby.signal), replaying its WAL.
 */
export async function startStandby(primary: PostgresServer): Promise<PostgresServer> {
	const dir = tempDir();
	const from = ["-h", "127.0.0.1", "-p", String(primary.port), "-U", user];
	await run([
		join(POSTGRES_BIN, "pg_basebackup"),
		"-D",
		join(dir, "data"),
		...from,
		"-R",
		"-X",
		"stream",
		"-c",
		"fast",
	]);
	return launch(dir, ["hot_standby=on"]);
}

let suite: PostgresServer | undefined;

/** Sets the server every test server's database is made on (testkit/postgres-suite.ts); returns the one it replaces. */
export function useSuitePostgres(server: PostgresServer | undefined): PostgresServer | undefined {
	const previous = suite;
	suite = server;
	return previous;
}

/** A fresh database for a test server when the run asks for PostgreSQL; null otherwise. */
export function suiteDatabase(): Promise<string> | null {
	return suite ? suite.createDatabase() : null;
}
