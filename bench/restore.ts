// `bun run bench:restore`: the loss window (RPO) and the time to serve again
// (RTO) of deploy/replication for 30 days of a busy site, and what keeping
// each fax's files in the database costs the ingest.
//
// 1. Generates 30 days of 200 faxes a day: real PDFs and thumbnails (the
//    ingest fixtures, processed once, each copy made unique), written as
//    `fax ingest` writes them: files on disk, row and bytes in one transaction.
// 2. Replicates them with deploy/replication/replicate.sh to a second "host"
//    (an sshd of its own on loopback, SFTP; needs root) and waits for the
//    replica; kills that sshd for a minute while faxes come in and times
//    "replica back → caught up".
// 3. Runs `fax ingest` in a loop beside a server, SIGKILLs every process of
//    the host mid-ingest, deletes its data folder.
// 4. Times deploy/replication/restore.sh and a new server until /readyz is 200
//    (RTO), beside a yardstick: `cp -r` of the same bytes on this disk (the
//    database file and the storage folder), the least any restore must do.
//    RPO: how long before the loss the oldest fax that did not come back was
//    committed (every fax committed earlier did), for this loss and for
//    TRIALS more on small sites, each killed at a random moment.
// 5. The ingest's store step (files on disk, then the row) with and without the
//    bytes in the row's transaction: the cost of the design.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../lib/db/index.ts";
import { processDocument } from "../lib/document/index.ts";
import { newSlug } from "../lib/fax/index.ts";
import { writeFaxFiles } from "../lib/storage/index.ts";
import { childEnv } from "../testkit/child-env.ts";
import { freePort } from "../testkit/ports.ts";
import { runCommand } from "../testkit/processes.ts";
import { makeTempDir } from "../testkit/server.ts";
import { startServerProcess } from "../testkit/server-process.ts";
import { writeSettingsFile } from "../testkit/settings-file.ts";
import { startSftpHost } from "../testkit/sftp-host.ts";

const ROOT = join(import.meta.dir, "..");
const DAYS = 30;
const PER_DAY = 200;
const INPUTS = ["fax-g3-2d.tif", "fax-g3-2d-fine.tif"].map((name) => join(ROOT, "fixtures/ingest", name));
const INGEST_SECONDS = 10;
const TARGETS = { rpoSeconds: 5, rtoSeconds: 120 };
const COST_FAXES = 300;
const TRIALS = 5;
const TRIAL_SECONDS = 4;
const OUTAGE_SECONDS = 60;

const root = makeTempDir();
const sftp = await startSftpHost();
const metricsPort = await freePort();
const env = (name: string, replica = "site") => ({
	DATABASE_PATH: join(root, name, "faxes.sqlite"),
	STORAGE_DIR: join(root, name, "storage"),
	LITESTREAM_REPLICA_URL: `${sftp.url}/${replica}`,
	LITESTREAM_SFTP_KEY: sftp.keyPath,
	LITESTREAM_METRICS_ADDR: `127.0.0.1:${metricsPort}`,
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
	RATE_LIMIT_PER_MINUTE: "1000000",
});
function settingsFile(name: string, replica = "site"): string {
	const path = join(root, `${name}.env`);
	writeSettingsFile(path, env(name, replica));
	return path;
}

/** Unique bytes from one real file: a PDF comment after %%EOF, bytes after a JPEG's end mark; both still open. */
function varied(bytes: Uint8Array, tag: string): Uint8Array {
	return Buffer.concat([bytes, Buffer.from(`\n%${tag}\n`)]);
}

async function processedFixtures() {
	const fixtures = [];
	for (const input of INPUTS) {
		const result = await processDocument(await Bun.file(input).bytes());
		if (!result.ok) throw new Error(`${input}: ${result.reason}`);
		fixtures.push(result);
	}
	return fixtures;
}

async function generate(databasePath: string, storageDir: string): Promise<{ faxes: number; bytes: number }> {
	const fixtures = await processedFixtures();
	const store = new FaxStore(openDatabase(databasePath));
	const now = Math.floor(Date.now() / 1000);
	let bytes = 0;
	const total = DAYS * PER_DAY;
	for (let i = 0; i < total; i++) {
		const fixture = fixtures[i % fixtures.length] ?? fixtures[0];
		if (!fixture) throw new Error("no fixture");
		const slug = newSlug();
		const files = { pdf: varied(fixture.pdf, slug), thumbnail: varied(fixture.thumbnail, slug) };
		await writeFaxFiles(storageDir, slug, files);
		const fax = {
			slug,
			source: "phone" as const,
			sender: `+1 555 0${String(i % 1000).padStart(3, "0")}`,
			received_at: now - DAYS * 86400 + Math.floor((i * DAYS * 86400) / total) + 60,
			page_count: fixture.pageCount,
			file_size: files.pdf.byteLength,
		};
		await store.insertReceived(fax, `bench:${i}`, { files });
		if (i % 50 === 0) await store.remove(slug, now);
		bytes += files.pdf.byteLength + files.thumbnail.byteLength;
	}
	return { faxes: total, bytes };
}

/** The watchdog's stall (deploy/replication/watchdog.ts), or NaN while nothing answers. */
async function stallSeconds(metricsUrl: string): Promise<number> {
	const text = await fetch(metricsUrl).then(
		(response) => response.text(),
		() => "",
	);
	const match = /^testfax_replication_stall_seconds\{[^}]*\} (\S+)$/m.exec(text);
	const confirmed = /^litestream_replica_wal_index\{/m.test(text);
	return match && confirmed ? Number(match[1]) : Number.NaN;
}

/** The replica holds everything the database held at `since` (ms). */
async function caughtUpSince(metricsUrl: string, since: number): Promise<boolean> {
	const stall = await stallSeconds(metricsUrl);
	return Number.isFinite(stall) && Date.now() - stall * 1000 > since;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
	const started = performance.now();
	while (!(await check())) {
		if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await Bun.sleep(50);
	}
	return performance.now() - started;
}

interface Committed {
	slug: string;
	at: number;
}

/** `fax ingest` in a loop for `ingestSeconds`, then one more, killed with the host; returns the commits and the loss time. */
async function ingestUntilLoss(
	host: ReturnType<typeof env>,
	killed: Pick<Bun.Subprocess, "kill">[],
	ingestSeconds = INGEST_SECONDS,
) {
	const committed: Committed[] = [];
	const started = Date.now();
	for (let i = 0; Date.now() - started < ingestSeconds * 1000; i++) {
		const input = INPUTS[i % INPUTS.length] ?? "";
		const result = await runCommand([process.execPath, "bin/fax.ts", "ingest", input, "--source", "phone"], {
			cwd: ROOT,
			env: host,
		});
		if (result.code !== 0) throw new Error(result.stderr);
		committed.push({ slug: result.stdout.trim(), at: Date.now() });
	}
	const inFlight = Bun.spawn(
		[process.execPath, "bin/fax.ts", "ingest", INPUTS[0] ?? "", "--source", "phone"],
		{
			cwd: ROOT,
			env: childEnv(host),
			stdout: "ignore",
			stderr: "ignore",
		},
	);
	await Bun.sleep(150);
	const lostAt = Date.now();
	for (const child of [inFlight, ...killed]) child.kill("SIGKILL");
	return { committed, lostAt };
}

/**
 * The replica host's sshd and its sessions killed for OUTAGE_SECONDS while
 * faxes come in, then back: how long until the replica holds everything
 * (Litestream restarted by the watchdog), beside the yardstick of the first
 * replica of the same database from a fresh start (`initialMs`).
 */
async function replicaOutage(
	host: ReturnType<typeof env>,
	metricsUrl: string,
	initialMs: number,
): Promise<void> {
	const ingestOne = () => ingestCommandMs(host);
	await sftp.kill();
	const down = Date.now();
	let faxes = 0;
	while (Date.now() - down < OUTAGE_SECONDS * 1000) {
		await ingestOne();
		faxes++;
	}
	await sftp.start();
	const started = Date.now();
	const backMs = await until("caught up", () => caughtUpSince(metricsUrl, started), 600_000);
	console.log(
		`replica back → caught up: ${seconds(backMs)} s after ${OUTAGE_SECONDS} s with the replica's sshd killed (${faxes} faxes meanwhile); ` +
			`yardstick: the first replica from a fresh start ${seconds(initialMs)} s; ratio ${(backMs / initialMs).toFixed(2)}`,
	);
}

/** The store step of an ingest, with or without the bytes in the row's transaction: ms per fax. */
async function storeStepMs(withBytes: boolean): Promise<number> {
	const dir = join(root, `cost-${withBytes}`);
	const store = new FaxStore(openDatabase(join(dir, "faxes.sqlite")));
	const fixtures = await processedFixtures();
	const started = performance.now();
	for (let i = 0; i < COST_FAXES; i++) {
		const fixture = fixtures[i % fixtures.length] ?? fixtures[0];
		if (!fixture) throw new Error("no fixture");
		const slug = newSlug();
		const files = { pdf: varied(fixture.pdf, slug), thumbnail: varied(fixture.thumbnail, slug) };
		await writeFaxFiles(join(dir, "storage"), slug, files);
		const fax = { slug, source: "phone" as const, sender: null, received_at: 1, page_count: 1, file_size: 1 };
		await store.insertReceived(fax, `cost:${i}`, withBytes ? { files } : {});
	}
	return (performance.now() - started) / COST_FAXES;
}

async function ingestCommandMs(host: ReturnType<typeof env>): Promise<number> {
	const started = performance.now();
	const result = await runCommand(
		[process.execPath, "bin/fax.ts", "ingest", INPUTS[0] ?? "", "--source", "phone"],
		{
			cwd: ROOT,
			env: host,
		},
	);
	if (result.code !== 0) throw new Error(result.stderr);
	return performance.now() - started;
}

/** What a loss kept: how long before it the oldest fax that did not come back was committed (0: none lost). */
function lossWindow(committed: Committed[], listed: Set<string>, lostAt: number) {
	const lost = committed.filter((c) => !listed.has(c.slug));
	const newestBack = committed.findLast((c) => listed.has(c.slug))?.at ?? Number.NaN;
	return {
		lost: lost.length,
		windowMs: lost.length === 0 ? 0 : lostAt - (lost[0]?.at ?? lostAt),
		newestBackMs: lostAt - newestBack,
	};
}

/**
 * One more loss on a small site of its own, the kill at a random moment of
 * Litestream's one-second sync, restored with restore.sh: its loss window.
 */
async function lossTrial(trial: number) {
	const name = `trial${trial}`;
	mkdirSync(join(root, name));
	const replication = Bun.spawn([join(ROOT, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: settingsFile(name, name) }),
		stdout: "ignore",
		stderr: "ignore",
	});
	await Bun.sleep(Math.random() * 1000);
	const { committed, lostAt } = await ingestUntilLoss(env(name, name), [replication], TRIAL_SECONDS);
	await replication.exited;
	rmSync(join(root, name), { recursive: true, force: true });
	const restored = `${name}-restored`;
	const restore = await runCommand([join(ROOT, "deploy/replication/restore.sh")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: settingsFile(restored, name) },
	});
	if (restore.code !== 0) throw new Error(restore.stdout + restore.stderr);
	const store = new FaxStore(openDatabase(env(restored, name).DATABASE_PATH));
	return lossWindow(committed, new Set((await store.newestFaxes(0, 100_000)).map((f) => f.slug)), lostAt);
}

/** deploy/replication/restore.sh on a fresh folder, then a server until /readyz is 200; the slugs it lists. */
async function restoreAndServe() {
	const second = env("host2");
	const started = performance.now();
	const restore = await runCommand([join(ROOT, "deploy/replication/restore.sh")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: settingsFile("host2") },
	});
	const restoreMs = performance.now() - started;
	if (restore.code !== 0) throw new Error(restore.stdout + restore.stderr);
	const restored = await startServerProcess(second);
	await until("ready", async () => (await fetch(`${restored.adminUrl}/readyz`)).status === 200, 60_000);
	const rtoMs = performance.now() - started;
	const listed = new Set(
		(await new FaxStore(openDatabase(second.DATABASE_PATH)).newestFaxes(0, 100_000)).map((f) => f.slug),
	);
	restored.child.kill("SIGTERM");
	await restored.child.exited;
	return { restoreMs, rtoMs, listed };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
try {
	const first = env("host1");
	mkdirSync(join(root, "host1"));
	let started = performance.now();
	const site = await generate(first.DATABASE_PATH, first.STORAGE_DIR);
	console.log(
		`generated ${site.faxes} faxes (${DAYS} days x ${PER_DAY}), ${(site.bytes / 1e6).toFixed(0)} MB of PDFs and thumbnails, in ${seconds(performance.now() - started)} s`,
	);
	const replication = Bun.spawn([join(ROOT, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: settingsFile("host1") }),
		stdout: "ignore",
		stderr: "ignore",
	});
	const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
	const replicating = Date.now();
	const initialMs = await until("first replica", () => caughtUpSince(metricsUrl, replicating), 600_000);
	console.log(`first snapshot on the replica host after ${seconds(initialMs)} s`);
	await replicaOutage(first, metricsUrl, initialMs);
	const server = await startServerProcess(first);
	const { committed, lostAt } = await ingestUntilLoss(first, [server.child, replication]);
	const databaseBytes = Bun.file(first.DATABASE_PATH).size;
	// The yardstick: the same bytes copied on this disk, before the host's folder goes.
	started = performance.now();
	const copy = await runCommand(["cp", "-r", join(root, "host1"), join(root, "yardstick")], {
		cwd: root,
		env: {},
	});
	const yardstickMs = performance.now() - started;
	if (copy.code !== 0) throw new Error(copy.stderr);
	rmSync(join(root, "host1"), { recursive: true, force: true });
	rmSync(join(root, "yardstick"), { recursive: true, force: true });

	const { restoreMs, rtoMs, listed } = await restoreAndServe();

	const siteLoss = lossWindow(committed, listed, lostAt);
	const gapMs = committed.length > 1 ? (INGEST_SECONDS * 1000) / committed.length : 0;
	console.log(`database ${(databaseBytes / 1e6).toFixed(0)} MB (rows and files' bytes)`);
	console.log(
		`RPO: ${committed.length} faxes committed in ${INGEST_SECONDS} s (one every ${gapMs.toFixed(0)} ms), ${siteLoss.lost} lost; ` +
			`loss window ${seconds(siteLoss.windowMs)} s; the newest fax restored was committed ${siteLoss.newestBackMs} ms before the loss`,
	);
	console.log(
		`RTO: restore.sh ${seconds(restoreMs)} s, serving (readyz 200) after ${seconds(rtoMs)} s (target < ${TARGETS.rtoSeconds} s); ` +
			`yardstick cp -r of the same bytes ${seconds(yardstickMs)} s; ratio ${(rtoMs / yardstickMs).toFixed(1)}`,
	);
	const without = await storeStepMs(false);
	const withBytes = await storeStepMs(true);
	const ingestMs = await ingestCommandMs(env("cost-ingest"));
	console.log(
		`ingest cost: store step ${without.toFixed(2)} ms/fax without the bytes in the row, ${withBytes.toFixed(2)} ms with ` +
			`(ratio ${(withBytes / without).toFixed(2)}, +${(withBytes - without).toFixed(2)} ms); a whole fax ingest takes ${ingestMs.toFixed(0)} ms`,
	);
	const trials = [];
	for (let trial = 1; trial <= TRIALS; trial++) trials.push(await lossTrial(trial));
	const windows = trials.map((t) => seconds(t.windowMs)).join(", ");
	const worst = Math.max(...trials.map((t) => t.windowMs));
	console.log(
		`RPO over ${TRIALS} more losses (${TRIAL_SECONDS} s of ingest each, killed at a random moment): loss windows ${windows} s; ` +
			`lost ${trials.map((t) => t.lost).join(", ")} faxes; worst ${seconds(worst)} s (target <= ${TARGETS.rpoSeconds} s)`,
	);
} finally {
	await sftp.stop();
	rmSync(root, { recursive: true, force: true });
}
