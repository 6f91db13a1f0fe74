// `fax backup DIR` under running writers, taken back by deploy/replication/restore.sh
// (the same script as a replica's restore): rows, tombstones, receipt keys and
// every fax's files, an imported fax's included.

import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { archiveFaxFiles, purgeExpired, writeFaxFiles } from "../../lib/storage/index.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { faxRecord } from "../../testkit/fixtures.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";

const ROOT = join(import.meta.dir, "../..");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const EMAIL = join(ROOT, "fixtures/ingest/scan-to-email.eml");
const UA = { "User-Agent": "backup-test/1.0" };
const root = makeTempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

function host(name: string) {
	const env = {
		DATABASE_PATH: join(root, name, "faxes.sqlite"),
		STORAGE_DIR: join(root, name, "storage"),
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
	};
	const settings = join(root, `${name}.env`);
	writeSettingsFile(settings, env);
	const fax = (args: string[]) => runCommand([process.execPath, "bin/fax.ts", ...args], { cwd: ROOT, env });
	return { env, settings, fax };
}

const filesOf = (storageDir: string, slug: string) =>
	Promise.all(
		[`${slug}.pdf`, `${slug}-thumb.jpg`].map((name) => Bun.file(join(storageDir, "faxes", name)).bytes()),
	);

type Host = ReturnType<typeof host>;

/** Three ingests with receipt keys (the second then removed) and an imported fax whose files sit on disk. */
async function fillFirstHost(first: Host): Promise<string[]> {
	const ingested: string[] = [];
	for (const [input, source, key] of [
		[TIFF, "phone", "k:1"],
		[EMAIL, "email", "k:2"],
		[TIFF, "phone", "k:3"],
	] as const) {
		const result = await first.fax(["ingest", input, "--source", source, "--receipt-key", key]);
		expect(result.code).toBe(0);
		ingested.push(result.stdout.trim());
	}
	const [kept, removed] = ingested;
	expect((await first.fax(["remove", removed ?? ""])).code).toBe(0);
	// An imported fax whose files were put beside it on disk, as an operator moving a site does.
	const importFile = join(root, "import.json");
	writeFileSync(importFile, JSON.stringify([faxRecord({ slug: "fax_Imported01", file_size: 4 })]));
	expect((await first.fax(["import", importFile])).code).toBe(0);
	const [pdf, thumbnail] = await filesOf(first.env.STORAGE_DIR, kept ?? "");
	writeFileSync(join(first.env.STORAGE_DIR, "faxes", "fax_Imported01.pdf"), pdf ?? "");
	writeFileSync(join(first.env.STORAGE_DIR, "faxes", "fax_Imported01-thumb.jpg"), thumbnail ?? "");
	return ingested;
}

/** `fax backup` while another ingest writes; a second backup into the same folder is refused. */
async function backUpWhileIngesting(first: Host): Promise<void> {
	const writing = Bun.spawn([process.execPath, "bin/fax.ts", "ingest", TIFF, "--source", "phone"], {
		cwd: ROOT,
		env: childEnv(first.env),
		stdout: "pipe",
		stderr: "pipe",
	});
	const backup = await first.fax(["backup", join(root, "backup")]);
	expect(backup).toMatchObject({
		code: 0,
		stdout: `backup written to ${join(root, "backup", "faxes.sqlite")}\n`,
	});
	expect(await writing.exited).toBe(0);
	expect(readdirSync(join(root, "backup"))).toEqual(["faxes.sqlite"]);
	const again = await first.fax(["backup", join(root, "backup")]);
	expect(again.code).toBe(1);
	expect(again.stderr).toContain("exists already");
}

/** restore.sh onto the second host's fresh folder, then once more, which it refuses. */
async function restoreOnFreshHost(second: Host): Promise<void> {
	mkdirSync(join(root, "second"));
	const restore = await runCommand([join(ROOT, "deploy/replication/restore.sh"), join(root, "backup")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: second.settings },
	});
	expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: "" });
	// The ingest running beside the backup is in it or not, whole either way.
	const backedUp = new Database(join(root, "backup", "faxes.sqlite"), { readonly: true });
	const live = backedUp.query("SELECT count(*) AS n FROM faxes WHERE file_size IS NOT NULL").get() as {
		n: number;
	};
	backedUp.close();
	expect([3, 4]).toContain(live.n);
	expect(restore.stdout).toContain(`restored the files of ${live.n} faxes\n`);
	const refused = await runCommand([join(ROOT, "deploy/replication/restore.sh"), join(root, "backup")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: second.settings },
	});
	expect(refused.code).toBe(1);
	expect(refused.stderr).toContain("exists; this restores onto a fresh host only");
}

/** The restored host serves the live faxes with the first host's bytes, and the removed one as gone. */
async function expectServedAsBefore(
	first: Host,
	second: Host,
	live: string[],
	removed: string,
): Promise<void> {
	const server = await startServerProcess(second.env);
	try {
		for (const slug of live) {
			expect((await fetch(`${server.url}/api/faxes/${slug}`, { headers: UA })).status).toBe(200);
			const original = await filesOf(first.env.STORAGE_DIR, slug);
			expect(await filesOf(second.env.STORAGE_DIR, slug)).toEqual(original);
			const served = await fetch(`${server.url}/cdn/faxes/${slug}.pdf`);
			expect(new Uint8Array(await served.arrayBuffer())).toEqual(new Uint8Array(original[0] ?? []));
		}
		expect((await fetch(`${server.url}/api/faxes/${removed}`, { headers: UA })).status).toBe(410);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
	}
}

/** A repeated receipt key answers the removed fax; every live fax has its bytes, the removed one's went with its row. */
async function expectReceiptsAndFiles(second: Host, removed: string): Promise<void> {
	const repeat = await second.fax(["ingest", EMAIL, "--source", "email", "--receipt-key", "k:2"]);
	expect(repeat.stdout).toBe(`${removed}\n`);
	const db = new Database(second.env.DATABASE_PATH, { readonly: true });
	const slugs = (sql: string) =>
		db
			.query<{ slug: string }, []>(sql)
			.all()
			.map((row) => row.slug);
	expect(slugs("SELECT slug FROM fax_files ORDER BY slug")).toEqual(
		slugs("SELECT slug FROM faxes WHERE file_size IS NOT NULL ORDER BY slug"),
	);
	expect(slugs("SELECT slug FROM fax_files")).not.toContain(removed);
	db.close();
}

test("fax backup while ingests run, restored on a fresh folder: rows, 410s, receipts and byte-identical files", async () => {
	const first = host("first");
	const [kept, removed, other] = await fillFirstHost(first);
	// The backup is taken while another ingest writes.
	await backUpWhileIngesting(first);
	const second = host("second");
	await restoreOnFreshHost(second);
	await expectServedAsBefore(first, second, [kept ?? "", other ?? "", "fax_Imported01"], removed ?? "");
	await expectReceiptsAndFiles(second, removed ?? "");
});

test("the purge copies into the database the files only the disk holds, and only those", async () => {
	const dir = join(root, "purge");
	const storageDir = join(dir, "storage");
	const store = new FaxStore(openDatabase(join(dir, "faxes.sqlite")));
	const now = Math.floor(Date.now() / 1000);
	const row = (slug: string) =>
		({ slug, source: "phone", sender: null, received_at: now - 60, page_count: 1, file_size: 3 }) as const;
	// Stored before schema 5: files on disk, no bytes in the database; and one whose files never came.
	await store.write(async (writer) => {
		await writer.insert(row("fax_OnDisk01"));
		await writer.insert(row("fax_NoFiles01"));
	});
	await writeFaxFiles(storageDir, "fax_OnDisk01", { pdf: Buffer.from("pdf"), thumbnail: Buffer.from("jpg") });
	await purgeExpired(store, storageDir, now);
	expect(await store.unarchivedSlugs("", 10)).toEqual(["fax_NoFiles01"]);
	expect(await Array.fromAsync(store.archivedFiles())).toEqual([
		{
			slug: "fax_OnDisk01",
			pdf: new Uint8Array(Buffer.from("pdf")),
			thumbnail: new Uint8Array(Buffer.from("jpg")),
		},
	]);
	expect(await archiveFaxFiles(store, storageDir)).toEqual({ archived: 0, missing: 1 });
});

test("fax restore-files refuses a missing database instead of making an empty one", async () => {
	const lost = host("no-database");
	const result = await lost.fax(["restore-files"]);
	expect(result).toEqual({
		code: 1,
		stdout: "",
		stderr: `restore-files: ${lost.env.DATABASE_PATH} does not exist; nothing to restore from\n`,
	});
	expect(existsSync(lost.env.DATABASE_PATH)).toBe(false);
});
