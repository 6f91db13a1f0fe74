// Moving a site from SQLite to PostgreSQL with the documented commands
// (docs/operations/cluster.md, "Moving a site to PostgreSQL"): `fax backup` on the old
// site, `fax copy-database` into PostgreSQL, and a new host, which serves
// every fax as the old site did (its files from the database, with the same
// validators); and `fax backup` from PostgreSQL gives a SQLite file that
// holds the same.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { databaseDigest, openEngine } from "../../lib/db/index.ts";
import { type PostgresServer, startPostgres } from "../../testkit/postgres.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const ROOT = join(import.meta.dir, "../..");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const EMAIL = join(ROOT, "fixtures/ingest/scan-to-email.eml");
const UA = { "User-Agent": "move-test/1.0" };
const root = makeTempDir();
let postgres: PostgresServer;
beforeAll(async () => {
	postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
	await postgres.stop();
	rmSync(root, { recursive: true, force: true });
});

function host(name: string, databaseUrl?: string) {
	const env: Record<string, string> = {
		DATABASE_PATH: join(root, name, "faxes.sqlite"),
		STORAGE_DIR: join(root, name, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
	};
	const fax = (args: string[]) => runCommand([process.execPath, "bin/fax.ts", ...args], { cwd: ROOT, env });
	return { env, fax };
}

async function answers(env: Record<string, string>, paths: string[]): Promise<string[]> {
	const server = await startServerProcess(env);
	try {
		return await Promise.all(
			paths.map(async (path) => {
				const response = await fetch(`${server.url}${path}`, { headers: UA });
				const body = Buffer.from(await response.arrayBuffer()).toString("base64");
				const { headers } = response;
				return `${response.status} ${headers.get("etag")} ${headers.get("last-modified")} ${headers.get("content-type")} ${body}`;
			}),
		);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
	}
}

test("a SQLite site moved to PostgreSQL serves every fax alike, and backs up into SQLite", async () => {
	const old = host("old");
	const slugs: string[] = [];
	for (const [input, source, key] of [
		[TIFF, "phone", "k:1"],
		[EMAIL, "email", "k:2"],
		[TIFF, "phone", "k:3"],
	] as const) {
		const result = await old.fax(["ingest", input, "--source", source, "--receipt-key", key]);
		expect(result.code).toBe(0);
		slugs.push(result.stdout.trim());
	}
	expect((await old.fax(["remove", slugs[1] ?? ""])).code).toBe(0);
	expect((await old.fax(["backup", join(root, "backup")])).code).toBe(0);
	const backupFile = join(root, "backup", "faxes.sqlite");

	const url = await postgres.createDatabase();
	const moved = host("new", url);
	const copy = await moved.fax(["copy-database", backupFile]);
	expect({ code: copy.code, stderr: copy.stderr }).toEqual({ code: 0, stderr: "" });
	expect(copy.stdout).toMatch(
		/^fax_imports: 0 rows.*\nfaxes: 2 rows.*\nremoved_faxes: 1 rows.*\nreceipts: 3 rows.*\nfax_files: 2 rows.*\nfax_reports: 2 rows.*\nfax_originals: 0 rows.*\ncopied and verified\n$/,
	);
	const again = await moved.fax(["copy-database", backupFile]);
	expect([again.code, again.stderr]).toEqual([
		1,
		"copy-database: the PostgreSQL database holds faxes already; nothing was copied\n",
	]);

	const paths = [
		"/api/faxes",
		...slugs.map((slug) => `/api/faxes/${slug}`),
		...[slugs[0], slugs[2]].flatMap((slug) => [`/cdn/faxes/${slug}.pdf`, `/cdn/faxes/${slug}-thumb.jpg`]),
	];
	expect(await answers(moved.env, paths)).toEqual(await answers(old.env, paths));
	// A re-delivery to the new site finds its receipt: nothing new is listed.
	expect((await moved.fax(["ingest", TIFF, "--source", "phone", "--receipt-key", "k:3"])).stdout).toBe(
		`${slugs[2]}\n`,
	);

	expect((await moved.fax(["backup", join(root, "from-postgres")])).code).toBe(0);
	const [original, copied] = await Promise.all([
		openEngine({ databasePath: backupFile, databaseUrl: null, busyTimeoutMs: 1000 }),
		openEngine({
			databasePath: join(root, "from-postgres", "faxes.sqlite"),
			databaseUrl: null,
			busyTimeoutMs: 1000,
		}),
	]);
	expect(await databaseDigest(copied)).toEqual(await databaseDigest(original));
	await original.close();
	await copied.close();
}, 120_000);
