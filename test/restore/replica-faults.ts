// Part of `npm run test:restore`: replication recovers with no person acting
// from a replica host that vanishes (sshd and its sessions SIGKILLed for 60 s,
// then back on the same port), refuses writes (its folder unwritable for
// 45 s) or hangs (sshd SIGSTOPped for 45 s, then SIGCONT), while `fax ingest`
// goes on steadily; a fourth host, with no fault, is the healthy run. Each
// host is deploy/replication/replicate.sh (Litestream 0.3.13 under its
// watchdog) as a service user, to an sshd of its own over SFTP. The four run
// at once, so the test lasts about one fault and its recovery.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { mountCheckout } from "../../testkit/checkout-mount.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { freePort } from "../../testkit/ports.ts";
import { runCommand } from "../../testkit/processes.ts";
import { sample } from "../../testkit/prometheus.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { createServiceUser, type ServiceUser } from "../../testkit/service-user.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";
import { type SftpHost, startSftpHost } from "../../testkit/sftp-host.ts";
import { type Fault, promtoolVerdicts, type StallSample } from "./stall-series.ts";

const checkout = mountCheckout();
const APP = checkout.app;
const INPUT = join(APP, "fixtures/ingest/fax-g3-2d.tif");
/** One fax every this many ms on each host: a steady ingest the four hosts can share on two cores. */
const INGEST_EVERY_MS = 2000;
const HEALTHY_BEFORE_MS = 20_000;
/** After the fault, the replica must hold everything within this (the watchdog restarts after 30 s of stall). */
const CATCH_UP_LIMIT_MS = 120_000;

const root = makeTempDir();
const user: ServiceUser = createServiceUser(`tfflt${process.pid}`);
const home = join(root, "home");

interface Acknowledged {
	slug: string;
	at: number;
}

const FAULT_NAMES: Fault[] = ["vanishes", "refuses writes", "hangs", "healthy"];
const hosts: Host[] = [];
let stopped: Host;

beforeAll(async () => {
	Bun.spawnSync(["chmod", "0711", root]);
	user.ownedFolder(home);
	for (const [i, fault] of FAULT_NAMES.entries())
		hosts.push(await hostFor(fault.replace(" ", "-"), String(i)));
	stopped = await hostFor("stopped", "s");
});

afterAll(async () => {
	for (const h of [...hosts, stopped]) await h?.sftp.stop();
	user.remove();
	rmSync(root, { recursive: true, force: true });
	checkout.unmount();
});

const FAULTS: Record<
	Fault,
	{ windowMs: number; begin(h: SftpHost): Promise<void>; end(h: SftpHost): Promise<void> }
> = {
	vanishes: { windowMs: 60_000, begin: (h) => h.kill(), end: (h) => h.start() },
	"refuses writes": {
		windowMs: 45_000,
		begin: async (h) => h.writable(false),
		end: async (h) => h.writable(true),
	},
	hangs: { windowMs: 45_000, begin: (h) => h.pause(), end: (h) => h.resume() },
	healthy: { windowMs: 45_000, begin: async () => {}, end: async () => {} },
};

type Host = Awaited<ReturnType<typeof hostFor>>;

async function hostFor(name: string, tag: string) {
	const sftp = await startSftpHost(tag);
	const key = join(home, `${name}_key`);
	copyFileSync(sftp.keyPath, key);
	user.give(key);
	user.ownedFolder(join(root, name));
	const metrics = `127.0.0.1:${await freePort()}`;
	const env = (folder: string) => ({
		DATABASE_PATH: join(root, folder, "faxes.sqlite"),
		STORAGE_DIR: join(root, folder, "storage"),
		LITESTREAM_REPLICA_URL: sftp.url,
		LITESTREAM_SFTP_KEY: key,
		LITESTREAM_METRICS_ADDR: metrics,
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
	});
	const settings = (folder: string) => {
		const path = join(root, `${folder}.env`);
		writeSettingsFile(path, env(folder));
		return path;
	};
	return { sftp, env, settings, metricsUrl: `http://${metrics}/metrics` };
}

/** `fax ingest` as the service user, one at a time and at most one per INGEST_EVERY_MS, until stopped. */
function steadyIngest(env: Record<string, string>, tag: string) {
	const acknowledged: Acknowledged[] = [];
	let running = true;
	const done = (async () => {
		for (let i = 0; running; i++) {
			const started = Date.now();
			const key = `${tag}:${i}`;
			const command = [...user.wrapper, checkout.bun, "bin/fax.ts", "ingest", INPUT, "--source", "phone"];
			const result = await runCommand([...command, "--receipt-key", key], {
				cwd: APP,
				env: { ...env, HOME: home },
			});
			if (result.code !== 0) throw new Error(`ingest ${key}: ${result.stderr}`);
			acknowledged.push({ slug: result.stdout.trim(), at: Date.now() });
			await Bun.sleep(Math.max(0, INGEST_EVERY_MS - (Date.now() - started)));
		}
	})();
	return {
		acknowledged,
		stop: async () => {
			running = false;
			await done;
		},
	};
}

/** The watchdog's stall, twice a second, until stopped. */
function sampleStall(metricsUrl: string, db: string) {
	const samples: StallSample[] = [];
	let running = true;
	const done = (async () => {
		while (running) {
			const text = await fetch(metricsUrl).then(
				(response) => response.text(),
				() => "",
			);
			const at = Date.now();
			const stall = sample(text, `testfax_replication_stall_seconds{db="${db}"}`);
			const restarts = sample(text, `testfax_replication_restarts_total{db="${db}"}`);
			const errors = sample(text, `litestream_sync_error_count{db="${db}"}`) ?? 0;
			if (stall !== undefined) samples.push({ at, stall, restarts: restarts ?? 0, errors });
			await Bun.sleep(500);
		}
	})();
	return {
		samples,
		stop: async () => {
			running = false;
			await done;
		},
	};
}

/** When the replica first held everything the database had at `since` (ms), from the samples. */
function caughtUpAt(samples: StallSample[], since: number): number | undefined {
	return samples.find((s) => s.at >= since && s.at - s.stall * 1000 > since)?.at;
}

async function untilCaughtUp(samples: StallSample[], since: number): Promise<number> {
	while (Date.now() - since < CATCH_UP_LIMIT_MS) {
		const at = caughtUpAt(samples, since);
		if (at !== undefined) return at;
		await Bun.sleep(250);
	}
	throw new Error(`the replica did not catch up within ${CATCH_UP_LIMIT_MS} ms of the fault's end`);
}

async function restoredSlugs(h: Host, name: string): Promise<{ slugs: Set<string>; said: string }> {
	const folder = `${name}-restored`;
	user.ownedFolder(join(root, folder));
	const restore = await runCommand([...user.wrapper, join(APP, "deploy/replication/restore.sh")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: h.settings(folder), HOME: home },
	});
	expect({ code: restore.code, out: restore.stdout + restore.stderr }).toMatchObject({ code: 0 });
	const db = new Database(h.env(folder).DATABASE_PATH, { readonly: true });
	try {
		const slugs = db
			.query<{ slug: string }, []>("SELECT slug FROM faxes")
			.all()
			.map((row) => row.slug);
		return { slugs: new Set(slugs), said: restore.stdout.trim().split("\n").at(-1) ?? "" };
	} finally {
		db.close();
	}
}

async function runFault(fault: Fault, h: Host) {
	const name = fault.replace(" ", "-");
	const { windowMs, begin, end } = FAULTS[fault];
	const replication = Bun.spawn([...user.wrapper, join(APP, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: h.settings(name), HOME: home }),
		stdout: Bun.file(join(root, `${name}.log`)),
		stderr: Bun.file(join(root, `${name}.err`)),
	});
	const stall = sampleStall(h.metricsUrl, h.env(name).DATABASE_PATH);
	const ingest = steadyIngest(h.env(name), name);
	try {
		await Bun.sleep(HEALTHY_BEFORE_MS);
		const began = Date.now();
		await begin(h.sftp);
		await Bun.sleep(windowMs);
		await end(h.sftp);
		const ended = Date.now();
		const caughtUp = await untilCaughtUp(stall.samples, ended).catch(async (error) => {
			const log =
				(await Bun.file(join(root, `${name}.err`)).text()) +
				(await Bun.file(join(root, `${name}.log`)).text());
			throw new Error(`${fault}: ${error}\n${log.split("\n").slice(-40).join("\n")}`);
		});
		// A scrape or two of the fallen stall for the captured series.
		await Bun.sleep(20_000);
		await ingest.stop();
		await stall.stop();
		const restored = await restoredSlugs(h, name);
		const log = await Bun.file(join(root, `${name}.err`)).text();
		const watchdog = log.split("\n").filter((line) => line.startsWith("replication watchdog:"));
		return {
			watchdog,
			fault,
			began,
			ended,
			caughtUp,
			samples: stall.samples,
			acknowledged: ingest.acknowledged,
			restored,
		};
	} finally {
		await ingest.stop().catch(() => {});
		await stall.stop();
		replication.kill("SIGTERM");
		// The watchdog stops Litestream within its 10 s drain, stuck or not.
		expect(await replication.exited).toBe(0);
	}
}

/**
 * replicate.sh stopped while Litestream is stuck on a hung replica: SIGTERM,
 * then SIGKILL after the 10 s drain; it exits 0, Litestream gone with it
 * (alone, 0.3.13 never exits).
 */
async function stopWhileStuck(h: Host): Promise<number> {
	const replication = Bun.spawn([...user.wrapper, join(APP, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: h.settings("stopped"), HOME: home }),
		stdout: "ignore",
		stderr: Bun.file(join(root, "stopped.err")),
	});
	const ingest = steadyIngest(h.env("stopped"), "stopped");
	await Bun.sleep(HEALTHY_BEFORE_MS);
	await h.sftp.pause();
	await Bun.sleep(10_000);
	const litestream = Bun.spawnSync(["pgrep", "-P", String(replication.pid)])
		.stdout.toString()
		.trim();
	const asked = Date.now();
	replication.kill("SIGTERM");
	expect(await replication.exited).toBe(0);
	const tookMs = Date.now() - asked;
	await ingest.stop();
	await h.sftp.resume();
	expect(litestream).toMatch(/^\d+$/);
	// It was stuck: the drain ran out and the watchdog killed it.
	expect(await Bun.file(join(root, "stopped.err")).text()).toContain(
		"replication watchdog: stopped; litestream killed\n",
	);
	expect(Bun.spawnSync(["kill", "-0", litestream]).exitCode).not.toBe(0);
	return tookMs;
}

test("replication recovers by itself from a replica that vanishes, refuses writes or hangs, and the stall pages", async () => {
	const [stopMs, ...runs] = await Promise.all([
		stopWhileStuck(stopped),
		...FAULT_NAMES.map((fault, i) => runFault(fault, hosts[i] as Host)),
	]);
	console.log(
		`stopped while stuck: replicate.sh exited ${((stopMs as number) / 1000).toFixed(1)} s after SIGTERM`,
	);
	// The drain (10 s), then SIGKILL: bounded, whatever Litestream does.
	expect(stopMs as number).toBeLessThan(20_000);
	for (const run of runs as Awaited<ReturnType<typeof runFault>>[]) {
		const before = run.acknowledged.filter((a) => a.at <= run.ended);
		// Faxes acknowledged while the replica was away are among them (a loaded machine ingests slowly).
		expect(before.filter((a) => a.at > run.began).length).toBeGreaterThan(2);
		// Every fax acknowledged before the end of the fault is on the replica.
		const missing = before.filter((a) => !run.restored.slugs.has(a.slug)).length;
		expect({ fault: run.fault, missing, said: run.restored.said }).toMatchObject({ missing: 0 });
		const during = run.samples.filter((s) => s.at >= run.began && s.at <= run.ended);
		const after = run.samples.filter((s) => s.at >= run.caughtUp);
		const peak = Math.max(...during.map((s) => s.stall));
		for (const line of run.watchdog) console.log(`${run.fault}: ${line}`);
		console.log(
			`${run.fault}: stall peaked at ${peak.toFixed(0)} s; replica back → caught up in ${((run.caughtUp - run.ended) / 1000).toFixed(1)} s; ` +
				`${run.samples.at(-1)?.restarts} watchdog restarts; ${run.acknowledged.length} faxes acknowledged; ${run.restored.said}`,
		);
		if (run.fault === "healthy") {
			expect(peak).toBeLessThan(15);
			expect(run.samples.at(-1)?.restarts).toBe(0);
			// Nor does ReplicationFailing page under a steady ingest: no sync error at all.
			expect(Math.max(...run.samples.map((s) => s.errors))).toBe(0);
		} else {
			// It rose during the fault and fell after it.
			expect(peak).toBeGreaterThan(30);
			expect(Math.max(...after.map((s) => s.stall))).toBeLessThan(15);
		}
	}
	// The alert fires on each fault's series and stays silent on the healthy one.
	expect(await promtoolVerdicts(runs, join(root, "promtool"))).toEqual({
		vanishes: "fires",
		"refuses writes": "fires",
		hangs: "fires",
		healthy: "silent",
	});
}, 300_000);
