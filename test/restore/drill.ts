// `npm run test:restore`: the restore drill of docs/operations/replication.md ("Backups and
// restore"), end to end. A first host serves and ingests while
// deploy/replication/replicate.sh streams to a second host (an sshd of its own on
// loopback, SFTP as another user); everything of the first host is killed
// with SIGKILL mid-ingest and its data folder deleted; deploy/replication/restore.sh
// brings a fresh folder back, and a new server serves what was committed.
// Every process of the hosts runs as a service user of its own (made for
// the run, deleted after), as `testfax` runs them in production.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { mountCheckout } from "../../testkit/checkout-mount.ts";
import { childEnv } from "../../testkit/child-env.ts";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { writeSettingsFile } from "../../testkit/settings-file.ts";
import { type SftpHost, startSftpHost } from "../../testkit/sftp-host.ts";

// The service user runs the checkout, fixtures included, from where it can reach it.
const checkout = mountCheckout();
const APP = checkout.app;
const INPUTS = ["fax-g3-2d.tif", "scan-to-email.eml", "fax-g3-2d-fine.tif"].map((name) =>
	join(APP, "fixtures/ingest", name),
);
/** The loss window the docs promise (RPO): a fax committed this long before the loss is restored. */
const WINDOW_MS = 5000;
const INGEST_MS = 9000;
const UA = { "User-Agent": "restore-drill/1.0" };

const root = makeTempDir();
let sftp: SftpHost;
const SERVICE_USER = `tfsvc${process.pid}`;
/** setpriv execs the command itself, so a SIGKILL of the child's PID reaches the process of the host. */
const AS_SERVICE_USER = ["setpriv", "--reuid", SERVICE_USER, "--regid", SERVICE_USER, "--clear-groups", "--"];
const userEnv = { HOME: join(root, "home") };
/** The replica host's key, the service user's own (Litestream's key-path). */
const replicaKey = join(userEnv.HOME, "replica_key");

function run(command: string[]): string {
	const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
	if (result.exitCode !== 0) throw new Error(`${command.join(" ")}: ${result.stderr.toString()}`);
	return result.stdout.toString();
}

function ownedFolder(path: string): void {
	mkdirSync(path);
	const id = Number(run(["id", "-u", SERVICE_USER]));
	chownSync(path, id, Number(run(["id", "-g", SERVICE_USER])));
	chmodSync(path, 0o700);
}

interface Host {
	env: { STORAGE_DIR: string } & Record<string, string>;
	settings: string;
}

function host(name: string): Host {
	const env = {
		DATABASE_PATH: join(root, name, "faxes.sqlite"),
		STORAGE_DIR: join(root, name, "storage"),
		LITESTREAM_REPLICA_URL: sftp.url,
		LITESTREAM_SFTP_KEY: replicaKey,
		SEED_DEMO: "0",
		PURGE_INTERVAL: "0",
		RATE_LIMIT_PER_MINUTE: "1000000",
	};
	const settings = join(root, `${name}.env`);
	writeSettingsFile(settings, env);
	return { env: { ...env, ...userEnv }, settings };
}

function fax(h: Host, args: string[]) {
	return runCommand([...AS_SERVICE_USER, checkout.bun, "bin/fax.ts", ...args], { cwd: APP, env: h.env });
}

interface Committed {
	slug: string;
	at: number;
	pdf: Uint8Array;
	thumbnail: Uint8Array;
}

async function ingestOne(h: Host, i: number): Promise<Committed> {
	const input = INPUTS[i % INPUTS.length] ?? "";
	const source = input.endsWith(".eml") ? "email" : "phone";
	const result = await fax(h, ["ingest", input, "--source", source, "--receipt-key", `drill:${i}`]);
	if (result.code !== 0) throw new Error(`ingest ${i}: ${result.stderr}`);
	const at = Date.now();
	const slug = result.stdout.trim();
	const dir = join(h.env.STORAGE_DIR, "faxes");
	return {
		slug,
		at,
		pdf: await Bun.file(join(dir, `${slug}.pdf`)).bytes(),
		thumbnail: await Bun.file(join(dir, `${slug}-thumb.jpg`)).bytes(),
	};
}

async function bytesAt(url: string): Promise<Buffer> {
	return Buffer.from(await (await fetch(url)).arrayBuffer());
}

beforeAll(async () => {
	sftp = await startSftpHost();
	run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVICE_USER]);
	chmodSync(root, 0o711);
	ownedFolder(join(root, "home"));
	copyFileSync(sftp.keyPath, replicaKey);
	chownSync(replicaKey, Number(run(["id", "-u", SERVICE_USER])), 0);
});

afterAll(async () => {
	await sftp?.stop();
	Bun.spawnSync(["userdel", SERVICE_USER]);
	rmSync(root, { recursive: true, force: true });
	checkout.unmount();
});

/** The first host serves, ingests and replicates, then is lost mid-ingest: every process SIGKILLed, its folder deleted. */
async function loseHostMidIngest() {
	const first = host("host1");
	ownedFolder(join(root, "host1"));
	const server = await startServerProcess(first.env, { wrapper: AS_SERVICE_USER, app: APP });
	const replication = Bun.spawn([...AS_SERVICE_USER, join(APP, "deploy/replication/replicate.sh")], {
		env: childEnv({ TESTFAX_SETTINGS: first.settings, ...userEnv }),
		stdout: "ignore",
		stderr: "ignore",
	});
	const committed: Committed[] = [];
	const started = Date.now();
	for (let i = 0; i < 3; i++) committed.push(await ingestOne(first, i));
	const removed = committed[0]?.slug ?? "";
	expect((await fax(first, ["remove", removed])).code).toBe(0);
	// Past the window after the removal, so the removal must be restored too; and
	// on until 5 faxes are older than the window, however slowly a loaded machine ingests.
	const older = () => committed.filter((c) => c.at <= Date.now() - WINDOW_MS).length;
	for (let i = 3; Date.now() - started < INGEST_MS || older() < 5; i++)
		committed.push(await ingestOne(first, i));

	const ingest = [checkout.bun, "bin/fax.ts", "ingest", INPUTS[0] ?? "", "--source", "phone"];
	const inFlight = Bun.spawn([...AS_SERVICE_USER, ...ingest], {
		cwd: APP,
		env: childEnv(first.env),
		stdout: "ignore",
		stderr: "ignore",
	});
	await Bun.sleep(150);
	const lostAt = Date.now();
	for (const child of [inFlight, server.child, replication]) child.kill("SIGKILL");
	await Promise.all([inFlight.exited, server.child.exited, replication.exited]);
	rmSync(join(root, "host1"), { recursive: true, force: true });
	return { committed, removed, started, lostAt };
}

/** deploy/replication/restore.sh on a fresh folder, then a new server on it. */
async function restoreHost() {
	const second = host("host2");
	ownedFolder(join(root, "host2"));
	const restore = await runCommand([...AS_SERVICE_USER, join(APP, "deploy/replication/restore.sh")], {
		cwd: root,
		env: { TESTFAX_SETTINGS: second.settings, ...userEnv },
	});
	expect({ code: restore.code, out: restore.stdout + restore.stderr }).toMatchObject({ code: 0 });
	const server = await startServerProcess(second.env, { wrapper: AS_SERVICE_USER, app: APP });
	return { second, server };
}

const utcSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** Every fax committed WINDOW_MS before the loss is listed, in order, each with its very files. */
async function expectRestored(url: string, lost: Awaited<ReturnType<typeof loseHostMidIngest>>) {
	const { committed, removed, started, lostAt } = lost;
	const listUrl = `${url}/api/faxes?since=${utcSeconds(started - 60_000)}&limit=100`;
	const listed = ((await (await fetch(listUrl, { headers: UA })).json()) as { slug: string }[]).map(
		(entry) => entry.slug,
	);
	const mustBeThere = committed.filter((c) => c.slug !== removed && c.at <= lostAt - WINDOW_MS);
	expect(mustBeThere.length).toBeGreaterThan(3);
	for (const c of mustBeThere) expect(listed).toContain(c.slug);
	// Whatever is listed is whole: the files the first host had, byte for byte.
	const bySlug = new Map(committed.map((c) => [c.slug, c]));
	for (const slug of listed) {
		const original = bySlug.get(slug);
		if (original === undefined) continue;
		expect(await bytesAt(`${url}/cdn/faxes/${slug}.pdf`)).toEqual(Buffer.from(original.pdf));
		expect(await bytesAt(`${url}/cdn/faxes/${slug}-thumb.jpg`)).toEqual(Buffer.from(original.thumbnail));
	}
	// Listed faxes are the committed ones in order, the in-flight one at most after them.
	const inOrder = committed.map((c) => c.slug).filter((slug) => listed.includes(slug));
	expect(listed.filter((slug) => bySlug.has(slug)).reverse()).toEqual(inOrder);
	expect((await fetch(`${url}/api/faxes/${removed}`, { headers: UA })).status).toBe(410);
	const newest = committed.findLast((c) => listed.includes(c.slug))?.at ?? 0;
	console.log(
		`drill: ${committed.length} committed, ${listed.length} restored; the newest committed ${lostAt - newest} ms before the loss`,
	);
}

/** A client holding a request on the new server hears of the next fax. */
async function expectHeldClientHears(url: string, second: Host) {
	// Every restored fax was received seconds ago; the next one comes after the held request.
	const held = fetch(`${url}/api/faxes?since=${utcSeconds(Date.now())}&limit=100&wait=30`, { headers: UA });
	let answered = false;
	void held.then(() => {
		answered = true;
	});
	await Bun.sleep(1500);
	expect(answered).toBe(false);
	const next = await fax(second, ["ingest", INPUTS[0] ?? "", "--source", "phone"]);
	expect(next.code).toBe(0);
	const heard = (await (await held).json()) as { slug: string }[];
	expect(heard.map((entry) => entry.slug)).toEqual([next.stdout.trim()]);
}

test("a host lost mid-ingest comes back from its replica with every fax committed before the window", async () => {
	const lost = await loseHostMidIngest();
	// The replica is on the other host, as that host's user wrote it.
	expect(readdirSync(sftp.replicaDir)).toEqual(["generations"]);
	const { second, server } = await restoreHost();
	try {
		await expectRestored(server.url, lost);
		// A receiver handing a restored fax over again lists nothing new.
		const again = await fax(second, [
			"ingest",
			INPUTS[1] ?? "",
			"--source",
			"email",
			"--receipt-key",
			"drill:1",
		]);
		expect(again).toMatchObject({ code: 0, stdout: `${lost.committed[1]?.slug}\n` });
		await expectHeldClientHears(server.url, second);
	} finally {
		server.child.kill("SIGTERM");
		await server.child.exited;
	}
}, 120_000);
