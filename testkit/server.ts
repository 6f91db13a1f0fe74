import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, loadConfig } from "../lib/config.ts";
import { FaxStore, openEngine } from "../lib/db/index.ts";
import { importFaxes } from "../lib/import/index.ts";
import type { Logger } from "../lib/log/index.ts";
import { type RunningServer, startServer } from "../lib/server.ts";
import { assertDescribed } from "./api-description.ts";
import { silentLog } from "./log.ts";
import { suiteDatabase } from "./postgres.ts";
import { type CommandResult, runCommand } from "./processes.ts";
import type { SteppedTime } from "./stepped-time.ts";

export interface TestServer extends Omit<RunningServer, "stop"> {
	baseUrl: string;
	dir: string;
	databasePath: string;
	storageDir: string;
	/** Environment that points the operator CLI at this server's database and storage. */
	env: Record<string, string>;
	/**
	 * GET (or another method) relative to the server; a test User-Agent unless one
	 * is given. Throws when the answer departs from openapi.json.
	 */
	request(path: string, init?: BunFetchRequestInit): Promise<Response>;
	/** GET relative to the admin listener. */
	admin(path: string): Promise<Response>;
	stop(): Promise<void>;
}

export interface TestServerOptions {
	env?: Record<string, string>;
	/** Records in the `fax import` format, imported before the server starts. */
	faxes?: unknown[];
	/** Milliseconds since the epoch; pins the request time. */
	clock?: () => number;
	/** Every clock and timer of the server on a time the test steps (testkit/stepped-time.ts). */
	time?: SteppedTime;
	/** Keeps the server on SQLite in a PostgreSQL run: the test breaks the SQLite file itself. */
	sqlite?: true;
	/** Silent unless given (testkit/log.ts captureLog() keeps the lines). */
	logger?: Logger;
}

/** A fresh temp directory with its own SQLite file and storage, removed on stop. */
export function makeTempDir(): string {
	return mkdtempSync(join(tmpdir(), "testfax-"));
}

/** The settings of a test server in `dir`: loopback, ephemeral ports, no demo, no purge, no practical limit. */
async function testServerEnv(dir: string, options: TestServerOptions): Promise<Record<string, string>> {
	const env: Record<string, string> = {
		PORT: "0",
		HOST: "127.0.0.1",
		ADMIN_PORT: "0",
		DATABASE_PATH: join(dir, "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
		CDN_BASE_URL: "https://cdn.test.example",
		SITE_BASE_URL: "https://site.test.example",
		SEED_DEMO: "0",
		RATE_LIMIT_PER_MINUTE: "1000000",
		PURGE_INTERVAL: "0",
		...options.env,
	};
	// A test that names a database keeps it; otherwise a PostgreSQL run gives each server a fresh one.
	const databaseUrl = env.DATABASE_URL === undefined && !options.sqlite ? await suiteDatabase() : null;
	if (databaseUrl !== null) env.DATABASE_URL = databaseUrl;
	return env;
}

async function importFixtures(config: Config, faxes: unknown[], now: number): Promise<void> {
	const store = new FaxStore(await openEngine(config));
	const result = await importFaxes(store, faxes, Math.floor(now / 1000));
	await store.close();
	if (!result.ok) throw new Error(`test fixtures are invalid: ${result.errors.join("; ")}`);
}

/** Starts the real server on an ephemeral loopback port with its own SQLite file. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
	const dir = makeTempDir();
	const config = loadConfig(await testServerEnv(dir, options));
	// A pinned clock pins the rate-limit windows too: they stay open however long the test takes.
	const time = options.time?.serverOptions ?? { clock: options.clock ?? Date.now, monotonic: options.clock };
	if (options.faxes) await importFixtures(config, options.faxes, time.clock());
	const server = await startServer(config, { ...time, logger: options.logger ?? silentLog() });
	return testServerHandle(server, config, dir);
}

function testServerHandle(server: RunningServer, config: Config, dir: string): TestServer {
	const baseUrl = `http://127.0.0.1:${server.port}`;
	return {
		...server,
		baseUrl,
		dir,
		databasePath: config.databasePath,
		storageDir: config.storageDir,
		env: {
			DATABASE_PATH: config.databasePath,
			...(config.databaseUrl === null ? {} : { DATABASE_URL: config.databaseUrl }),
			...(config.databaseWriteUrl === null ? {} : { DATABASE_WRITE_URL: config.databaseWriteUrl }),
			STORAGE_DIR: config.storageDir,
			CDN_BASE_URL: config.cdnBaseUrl,
			SITE_BASE_URL: config.siteBaseUrl,
			SEED_DEMO: "0",
		},
		async request(path, init = {}) {
			const headers = new Headers(init.headers);
			if (!headers.has("user-agent")) headers.set("user-agent", "testfax-tests/1.0");
			const url = `${baseUrl}${path}`;
			const response = await fetch(url, { ...init, headers });
			await assertDescribed(init.method ?? "GET", url, response, init.decompress === false);
			return response;
		},
		admin(path) {
			return fetch(`${server.adminUrl}${path}`);
		},
		async stop() {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** The store of a test server's database, SQLite or PostgreSQL: a second connection, as another process has. */
export async function openServerStore(server: TestServer): Promise<FaxStore> {
	const databaseUrl = server.env.DATABASE_URL ?? null;
	return new FaxStore(
		await openEngine({ databasePath: server.databasePath, databaseUrl, busyTimeoutMs: 5000 }),
	);
}

/** The environment that makes another server use `server`'s database. */
export function sameDatabase(server: TestServer): Record<string, string> {
	const { DATABASE_PATH, DATABASE_URL } = server.env;
	return { DATABASE_PATH: DATABASE_PATH ?? "", ...(DATABASE_URL === undefined ? {} : { DATABASE_URL }) };
}

/**
 * For tests that start servers of their own: returns the start function; every
 * server it started is stopped after each test.
 */
export function useTestServers(): (options?: TestServerOptions) => Promise<TestServer> {
	const running: TestServer[] = [];
	afterEach(async () => {
		await Promise.all(running.splice(0).map((server) => server.stop()));
	});
	return async (options) => {
		const server = await startTestServer(options);
		running.push(server);
		return server;
	};
}

/** `testfax_held_requests` of the instance whose admin listener is `adminBase`. */
export async function heldOn(adminBase: string): Promise<number> {
	const metrics = await fetch(`${adminBase}/metrics`).then((answer) => answer.text());
	return Number(/\ntestfax_held_requests (\d+)\n/.exec(metrics)?.[1] ?? -1);
}

/** Resolves once `server` holds `count` requests, as /metrics counts them. */
export async function heldCount(server: TestServer, count: number): Promise<void> {
	const deadline = Date.now() + 20_000;
	for (;;) {
		if ((await heldOn(server.adminUrl)) === count) return;
		if (Date.now() > deadline) throw new Error(`not ${count} held within 20 s`);
		await Bun.sleep(10);
	}
}

/** Runs `bun bin/fax.ts ...args` as operators do; returns exit code and output. */
export function runFax(
	args: string[],
	env: Record<string, string>,
	stdin?: Uint8Array | string | Blob,
): Promise<CommandResult> {
	return runCommand([process.execPath, "bin/fax.ts", ...args], {
		cwd: join(import.meta.dir, ".."),
		env,
		stdin,
	});
}
