// deploy/replication/restore.sh's own answers: --help, leftovers of a moved
// database, and a replica whose newest generation hides an older, fuller one
// (replication started once against an empty database), with real
// Litestream and replicate.sh to a file replica.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { childEnv, realClockEnv } from "../../testkit/child-env.ts";
import { freePort } from "../../testkit/ports.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";

const ROOT = join(import.meta.dir, "../..");
const RESTORE = join(ROOT, "deploy/replication/restore.sh");
const TIFF = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const root = makeTempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function host(name: string) {
	const env = {
		DATABASE_PATH: join(root, name, "faxes.sqlite"),
		STORAGE_DIR: join(root, name, "storage"),
		LITESTREAM_REPLICA_URL: `file://${join(root, "replica")}`,
		LITESTREAM_METRICS_ADDR: `127.0.0.1:${await freePort()}`,
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
	};
	const settings = join(root, `${name}.env`);
	writeSettingsFile(settings, env);
	const fax = (args: string[]) => runCommand([process.execPath, "bin/fax.ts", ...args], { cwd: ROOT, env });
	const restore = (args: string[]) =>
		runCommand([RESTORE, ...args], { cwd: root, env: { TESTFAX_SETTINGS: settings } });
	return { env, settings, fax, restore };
}

type Host = Awaited<ReturnType<typeof host>>;

async function ingest(h: Host, n: number): Promise<void> {
	for (let i = 0; i < n; i++) expect((await h.fax(["ingest", TIFF, "--source", "phone"])).code).toBe(0);
}

/**
 * replicate.sh until the replica holds the database, then `meanwhile`, then
 * SIGTERM: Litestream syncs what is left and exits.
 */
async function replicateOnce<T>(h: Host, meanwhile: () => Promise<T>): Promise<T> {
	const child = Bun.spawn([join(ROOT, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: h.settings }),
		stdout: "ignore",
		stderr: "ignore",
	});
	const metrics = `http://${h.env.LITESTREAM_METRICS_ADDR}/metrics`;
	for (let tries = 0; tries < 200; tries++) {
		const text = await fetch(metrics).then(
			(r) => r.text(),
			() => "",
		);
		if (text.includes("litestream_replica_wal_index{")) break;
		await Bun.sleep(100);
	}
	const result = await meanwhile();
	child.kill("SIGTERM");
	expect(await child.exited).toBe(0);
	return result;
}

test("restore.sh --help answers and touches nothing", async () => {
	const h = await host("help");
	mkdirSync(join(root, "help"));
	writeFileSync(`${h.env.DATABASE_PATH}.restoring`, "half");
	const result = await h.restore(["--help"]);
	expect(result.code).toBe(0);
	expect(result.stdout).toStartWith("usage: restore.sh [--generation ID | --time TIMESTAMP] [BACKUP_DIR]\n");
	expect(existsSync(`${h.env.DATABASE_PATH}.restoring`)).toBe(true);
	expect(await h.restore(["--bogus"])).toMatchObject({ code: 64 });
});

test("a database moved away without its -wal is refused in one line", async () => {
	const h = await host("leftover");
	mkdirSync(join(root, "leftover"));
	writeFileSync(`${h.env.DATABASE_PATH}-wal`, "");
	const result = await h.restore([]);
	expect(result).toEqual({
		code: 1,
		stdout: "",
		stderr: `restore: ${h.env.DATABASE_PATH}-wal exists; this restores onto a fresh host only (move ${h.env.DATABASE_PATH}, its -wal and -shm away together first)\n`,
	});
});

test("a newer generation with fewer faxes is refused until one is chosen; each says what it restored", async () => {
	const first = await host("first");
	mkdirSync(join(root, "first"));
	await ingest(first, 3);
	await replicateOnce(first, async () => {});
	// The database is lost; replication starts again against a new one with one fax.
	renameSync(join(root, "first"), join(root, "first-lost"));
	mkdirSync(join(root, "first"));
	await ingest(first, 1);
	// A point in time inside the new generation, between its first fax and its second.
	const between = await replicateOnce(first, async () => {
		await Bun.sleep(500);
		// Litestream (a static Go binary) keeps the real clock under `test:any-date`'s faketime.
		const at = Bun.spawnSync(["date", "-u", "+%Y-%m-%dT%H:%M:%S.%3NZ"], { env: realClockEnv() })
			.stdout.toString()
			.trim();
		await Bun.sleep(500);
		await ingest(first, 1);
		await Bun.sleep(1500);
		return at;
	});

	const second = await host("second");
	mkdirSync(join(root, "second"));
	const refused = await second.restore([]);
	const match =
		/^restore: the newest generation ([0-9a-f]{16}) lists 2 faxes, the older ([0-9a-f]{16}) 3; run again with --generation \2 \(or --generation \1\)\n$/.exec(
			refused.stderr,
		);
	expect({ code: refused.code, match: match !== null, out: refused.stdout + refused.stderr }).toMatchObject({
		code: 1,
		match: true,
	});
	expect(existsSync(second.env.DATABASE_PATH)).toBe(false);
	const [, newest, older] = match ?? [];
	const chosen = await second.restore(["--generation", older ?? ""]);
	expect(chosen.code).toBe(0);
	expect(chosen.stdout).toMatch(
		new RegExp(
			`restore: 3 faxes from generation ${older} as of \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z; ${second.env.DATABASE_PATH} and`,
		),
	);
	const third = await host("third");
	mkdirSync(join(root, "third"));
	const newestChosen = await third.restore(["--generation", newest ?? ""]);
	expect(newestChosen.stdout).toContain(`restore: 2 faxes from generation ${newest} as of `);
	const fourth = await host("fourth");
	mkdirSync(join(root, "fourth"));
	const atTime = await fourth.restore(["--time", between]);
	expect(atTime.stdout + atTime.stderr).toContain(
		`restore: 1 faxes from generation ${newest} as of ${between}; `,
	);
}, 60_000);
