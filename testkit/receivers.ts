/**
 * The receivers host of docs/operations/receivers.md, made by the one
 * command the docs name, deploy/receivers/install.sh, run as an operator runs
 * it (a second time on a host that has them), for `npm run test:receivers`.
 * Everything the test changes besides what install.sh installs is undone:
 * the settings file, the daemons it started, the received files. Needs root.
 */
import {
	chmodSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.ts";

export const ROOT = join(import.meta.dir, "..");
/** Where docs/operations/receivers.md installs the service; here this checkout, bind-mounted. */
export const APP = "/opt/testfax-api";
export const INSTALL = join(APP, "deploy/receivers/install.sh");
export const SETTINGS = "/etc/testfax-api/testfax.env";
export const SPOOL = "/var/spool/hylafax";
export const RECVQ = join(SPOOL, "recvq");
/** Where faxrcvd moves a received file once it is listed. */
export const LISTED = join(RECVQ, "listed");
export const SYSLOG = "/var/log/syslog";
/** What `install.sh --status` says of a host it made with its defaults (two iaxmodems), every daemon up. */
export const ALL_RUNNING = [
	"install.sh: postfix running",
	"install.sh: cron running",
	"install.sh: faxq running",
	"install.sh: iaxmodem ttyIAX0 running",
	"install.sh: iaxmodem ttyIAX1 running",
	"install.sh: faxgetty ttyIAX0 running",
	"install.sh: faxgetty ttyIAX1 running",
	"install.sh: call-watch running",
	"install.sh: mail-watch running",
	"install.sh: the API server running",
];

/** Runs a command to its end; throws with its output when it fails. */
export function sh(command: string[]): string {
	const result = Bun.spawnSync(command, { stdin: "ignore" });
	if (result.exitCode !== 0) {
		throw new Error(
			`${command.join(" ")} exited ${result.exitCode}: ${result.stderr.toString()}${result.stdout.toString()}`,
		);
	}
	return result.stdout.toString();
}

/** A command as `user` with the user's groups and no environment, as cron runs one. */
export function asUser(
	user: string,
	command: string[],
	options: { groups?: "init" | "clear" } = {},
): string[] {
	const groups = options.groups === "clear" ? "--clear-groups" : "--init-groups";
	return ["setpriv", `--reuid=${user}`, `--regid=${user}`, groups, "env", "-i", ...command];
}

/** Whether `user` passes `test FLAG path` (-w, -r, -x). */
export function userCan(user: string, flag: "-r" | "-w" | "-x", path: string): boolean {
	return Bun.spawnSync(asUser(user, ["test", flag, path])).exitCode === 0;
}

/**
 * This checkout bind-mounted at `folder` (a checkout under /root is no place
 * uucp may enter); its undoing unmounts it, lazily (a daemon it ran may still
 * be exiting), and removes the folder.
 */
export function mountAt(folder: string): () => void {
	mkdirSync(folder, { recursive: true });
	if (Bun.spawnSync(["mountpoint", "-q", folder]).exitCode === 0) Bun.spawnSync(["umount", "--lazy", folder]);
	if (readdirSync(folder).length > 0) throw new Error(`${folder} holds an installation: not touching it`);
	sh(["mount", "--bind", ROOT, folder]);
	return () => {
		Bun.spawnSync(["umount", "--lazy", folder]);
		// Not recursive: were the mount still there, that would delete this checkout.
		rmdirSync(folder);
	};
}

/** The folder the host's receivers run from, as Postfix's master.cf names it; null when none is installed. */
export function installedFrom(): string | null {
	if (Bun.which("postconf") === null) return null;
	const service = Bun.spawnSync(["postconf", "-M", "testfax/unix"], { stderr: "ignore" });
	const argv = /argv=(\S+)\/deploy\/receivers\/postfix\/testfax-mail /.exec(service.stdout.toString());
	return argv?.[1] ?? null;
}

/** The receivers the host runs when the test starts: their folder, whether every daemon is up, and `--status` as it said. */
export type FoundInstall = { folder: string; running: boolean; status: string } | null;

/** `install.sh --status` without the process ids, which a restart changes. */
export const withoutPids = (status: string) => status.replace(/ \(pid \d+\)/g, "");

/** The install the test finds: one of another folder than the test's own mount, which it hands back. */
function foundInstall(): FoundInstall {
	const folder = installedFrom();
	if (folder === null || folder === APP) return null;
	const install = join(folder, "deploy/receivers/install.sh");
	if (!existsSync(install)) return null;
	const status = Bun.spawnSync([install, "--status"]);
	return { folder, running: status.exitCode === 0, status: withoutPids(status.stdout.toString()) };
}

/**
 * Hands the host back to the install it was found with: that folder's own
 * install.sh takes over master.cf, the cron file and the server again, and
 * starts the daemons that ran.
 */
function handBack(found: NonNullable<FoundInstall>): void {
	const install = join(found.folder, "deploy/receivers/install.sh");
	sh(found.running ? [install] : [install, "--no-start"]);
}

/** The data folder of the settings, its storage on a small disk of its own; install.sh gives them to testfax. */
function makeDataDir(storageBytes: number): { dir: string; storage: string; release(): void } {
	const dir = sh(["mktemp", "-d", "/var/tmp/testfax-receivers-XXXXXX"]).trim();
	const storage = join(dir, "storage");
	mkdirSync(storage);
	sh(["mount", "-t", "tmpfs", "-o", `size=${storageBytes}`, "tmpfs", storage]);
	return {
		dir,
		storage,
		release() {
			Bun.spawnSync(["umount", storage]);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** The shipped settings file with `values` in place of its own. */
export function writeSettings(values: Record<string, string>): void {
	const template = readFileSync(join(ROOT, "deploy/receivers/testfax.env"), "utf8");
	const kept = template.split("\n").filter((line) => !Object.hasOwn(values, line.split("=")[0] ?? ""));
	const text = `${kept.join("\n").trimEnd()}\n${Object.entries(values)
		.map(([name, value]) => `${name}=${value}`)
		.join("\n")}\n`;
	mkdirSync("/etc/testfax-api", { recursive: true });
	// Written in place: install.sh gave the file its owner and mode.
	writeFileSync(SETTINGS, text);
}

/** A file set aside now and put back by the returned undoing. */
function setAside(path: string, store: string): () => void {
	if (!existsSync(path)) return () => rmSync(path, { force: true });
	const kept = join(store, path.replaceAll("/", "_"));
	renameSync(path, kept);
	return () => {
		rmSync(path, { force: true });
		renameSync(kept, path);
	};
}

export interface ReceiversHost {
	data: { dir: string; storage: string };
	/** What install.sh printed: its first run here, and the run right after it. */
	runs: [string, string];
	/** Byte offsets of the logs when the test began: its lines come after. */
	logStart: { syslog: number; mail: number };
	mailLog: string;
	/** The receivers the host ran when the test began, of another folder; the undoing hands the host back to them. */
	found: FoundInstall;
	/** Undoes the set-up, every step even past a failing one; throws naming the steps that failed. */
	undo(): void;
}

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** The settings of an API server install.sh runs on free loopback ports, and its base URL. */
export async function loopbackApi(): Promise<{ api: string; settings: Record<string, string> }> {
	const port = await freePort();
	const api = `http://127.0.0.1:${port}`;
	return {
		api,
		settings: {
			HOST: "127.0.0.1",
			PORT: String(port),
			ADMIN_PORT: String(await freePort()),
			CDN_BASE_URL: `${api}/cdn`,
			SITE_BASE_URL: api,
			RATE_LIMIT_PER_MINUTE: "100000",
		},
	};
}

/** One undoing of the set-up, named so that a failure says which. */
type Undo = { name: string; run: () => void };

/** Runs every undoing, the last first, even past a failing one; throws naming each that failed. */
function undoAll(undo: Undo[]): void {
	const failed: string[] = [];
	for (const step of [...undo].reverse()) {
		try {
			step.run();
		} catch (error) {
			failed.push(`${step.name}: ${error instanceof Error ? error.message : String(error)}`);
		}
	}
	undo.length = 0;
	if (failed.length > 0) throw new Error(`undoing the receivers host failed at: ${failed.join("; ")}`);
}

/** Runs one step of the set-up; a failure says which step. */
export async function setUpStep<T>(name: string, step: () => T | Promise<T>): Promise<T> {
	try {
		return await step();
	} catch (error) {
		throw new Error(
			`set-up step "${name}" failed: ${error instanceof Error ? error.message : String(error)}`,
		);
	}
}

/**
 * install.sh with the test's settings, twice (the second run must change
 * nothing), then the fax line up. Faxes an earlier run left in the receive
 * queue are set aside first, so this database lists only this run's. A host
 * found running receivers of another folder (an operator's install) is
 * stopped first, and handed back to that folder by the undoing.
 */
export async function installReceivers(settings: Record<string, string>, storageBytes: number) {
	const undo: Undo[] = [];
	// A set-up that fails half-way undoes what it did: mounts, set-aside files, daemons.
	try {
		return await setUp(undo, settings, storageBytes);
	} catch (error) {
		undoAll(undo);
		throw error;
	}
}

/** Where the test makes the case it starts from on a host with no receivers: an operator's install of another folder. */
export const OPERATOR_APP = "/opt/testfax-api-operator";

/**
 * The host as an operator leaves it after docs/operations/receivers.md: the receivers
 * installed by install.sh from a folder of its own (this checkout, mounted at
 * OPERATOR_APP), every daemon running. Made only when the host runs no such
 * install already (then that one is the case); null then. The undoing stops
 * it and puts the host back as it was before: a stopped install of another
 * folder found first is named again in its configuration, still stopped.
 */
export function operatorInstall(settings: Record<string, string>): { undo(): void } | null {
	const before = foundInstall();
	if (before?.running) return null;
	const undo: Undo[] = [];
	// Last of all: master.cf, the cron file and server.app name again the stopped install found before.
	if (before !== null)
		undo.push({ name: `hand the host back to ${before.folder}`, run: () => handBack(before) });
	try {
		const keep = sh(["mktemp", "-d", "/var/tmp/testfax-receivers-operator-XXXXXX"]).trim();
		undo.push({
			name: "remove the operator's set-aside folder",
			run: () => rmSync(keep, { recursive: true, force: true }),
		});
		undo.push({
			name: `put back ${SETTINGS} from before the operator's install`,
			run: setAside(SETTINGS, keep),
		});
		undo.push({ name: `unmount ${OPERATOR_APP}`, run: mountAt(OPERATOR_APP) });
		const data = makeDataDir(8 * 1024 * 1024);
		undo.push({ name: "remove the operator's data folder", run: () => data.release() });
		writeSettings({ ...settings, DATABASE_PATH: join(data.dir, "faxes.sqlite"), STORAGE_DIR: data.storage });
		chmodSync(SETTINGS, 0o600);
		const install = join(OPERATOR_APP, "deploy/receivers/install.sh");
		undo.push({ name: `${install} --stop`, run: () => void sh([install, "--stop"]) });
		sh([install]);
		return { undo: () => undoAll(undo) };
	} catch (error) {
		undoAll(undo);
		throw error;
	}
}

/** The syslog daemon install.sh started, which --stop leaves running: stopped when it was not running before. */
function syslogUndo(): () => void {
	const pidFile = "/run/testfax-receivers/syslogd.pid";
	const ranBefore =
		existsSync(pidFile) && Bun.spawnSync(["kill", "-0", readFileSync(pidFile, "utf8").trim()]).exitCode === 0;
	return () => {
		if (ranBefore || !existsSync(pidFile)) return;
		Bun.spawnSync(["kill", readFileSync(pidFile, "utf8").trim()]);
		rmSync(pidFile, { force: true });
	};
}

/** Sets the receive queue's calls and files of earlier runs aside, put back by the undoing. */
function setAsideQueue(undo: Undo[], keep: string): void {
	const listedBefore = new Set(existsSync(LISTED) ? readdirSync(LISTED) : []);
	undo.push({
		name: "remove the marks and files this run left in recvq/listed",
		run: () => {
			for (const name of existsSync(LISTED) ? readdirSync(LISTED) : []) {
				if (!listedBefore.has(name)) rmSync(join(LISTED, name));
			}
		},
	});
	const queued = existsSync(RECVQ) ? readdirSync(RECVQ).filter((name) => /^fax\d+\.tif$/.test(name)) : [];
	for (const name of queued)
		undo.push({ name: `put back recvq/${name}`, run: setAside(join(RECVQ, name), keep) });
}

/** Takes the host over: stops what it runs, mounts this checkout, sets aside what the test replaces. */
async function takeOver(undo: Undo[], found: FoundInstall): Promise<void> {
	if (found?.running) {
		const install = join(found.folder, "deploy/receivers/install.sh");
		await setUpStep(`stop the receivers found running from ${found.folder}`, () => sh([install, "--stop"]));
	}
	if (found !== null)
		undo.push({ name: `hand the host back to ${found.folder}`, run: () => handBack(found) });
	undo.push({
		name: `unmount ${APP}`,
		run: await setUpStep(`mount this checkout at ${APP}`, () => mountAt(APP)),
	});
	const keep = sh(["mktemp", "-d", "/var/tmp/testfax-receivers-kept-XXXXXX"]).trim();
	undo.push({
		name: "remove the folder of set-aside files",
		run: () => rmSync(keep, { recursive: true, force: true }),
	});
	if (found === null && Bun.spawnSync([INSTALL, "--status"]).exitCode === 0)
		await setUpStep("stop the receivers an earlier run left running", () => sh([INSTALL, "--stop"]));
	undo.push({ name: `put back ${SETTINGS}`, run: setAside(SETTINGS, keep) });
	setAsideQueue(undo, keep);
}

async function setUp(
	undo: Undo[],
	settings: Record<string, string>,
	storageBytes: number,
): Promise<ReceiversHost> {
	const found = foundInstall();
	await takeOver(undo, found);
	const data = await setUpStep("make the data folder", () => makeDataDir(storageBytes));
	undo.push({ name: "remove the data folder", run: () => data.release() });
	writeSettings({ ...settings, DATABASE_PATH: join(data.dir, "faxes.sqlite"), STORAGE_DIR: data.storage });
	chmodSync(SETTINGS, 0o600);
	const logStart = { syslog: size(SYSLOG), mail: 0 };
	undo.push({ name: "stop the syslog daemon install.sh started", run: syslogUndo() });
	undo.push({ name: "install.sh --stop", run: () => void sh([INSTALL, "--stop"]) });
	const first = await setUpStep("install.sh", () => sh([INSTALL]));
	markEarlierCalls();
	const second = await setUpStep("install.sh again", () => sh([INSTALL]));
	const mailLog = sh(["postconf", "-h", "maillog_file"]).trim() || SYSLOG;
	logStart.mail = size(mailLog);
	await setUpStep("both faxgettys running and idle", () =>
		until(
			() => (sh(["faxstat", "-s"]).match(/Running and idle/g)?.length === 2 ? true : undefined),
			60_000,
			500,
		),
	);
	return { data, runs: [first, second], logStart, mailLog, found, undo: () => undoAll(undo) };
}

/**
 * Marks the calls earlier runs left session logs of as handed over (the mark
 * faxrcvd leaves in recvq/listed/), so the sweep lists only this run's calls;
 * the undoing of recvq/listed/ removes the marks.
 */
function markEarlierCalls(): void {
	const logs = join(SPOOL, "log");
	for (const name of existsSync(logs) ? readdirSync(logs) : []) {
		if (/^c\d+$/.test(name) && !existsSync(join(LISTED, name))) writeFileSync(join(LISTED, name), "");
	}
}

/**
 * Sends a prepared message through Postfix on loopback, with STARTTLS, from
 * the envelope sender `from` (swaks' own default otherwise); resolves once
 * Postfix has queued it.
 */
export async function sendMail(
	message: string,
	options: { tls?: boolean; from?: string } = {},
): Promise<{ queuedAtMs: number; queueId: string; transcript: string }> {
	const tls = options.tls === false ? [] : ["--tls"];
	const from = options.from === undefined ? [] : ["--from", options.from];
	const child = Bun.spawn(
		[
			"swaks",
			"--server",
			"127.0.0.1:25",
			"--suppress-data",
			...tls,
			...from,
			"--to",
			"fax@test.example",
			"--data",
			"-",
		],
		{ stdin: new Blob([message]), stdout: "pipe", stderr: "pipe" },
	);
	const decoder = new TextDecoder();
	let seen = "";
	let queued: { queuedAtMs: number; queueId: string } | null = null;
	for await (const chunk of child.stdout) {
		seen += decoder.decode(chunk, { stream: true });
		const match = /^ *<[-~] +250 2\.0\.0 Ok: queued as (\S+)$/m.exec(seen);
		if (queued === null && match) queued = { queuedAtMs: Date.now(), queueId: match[1] ?? "" };
	}
	await child.exited;
	if (queued === null)
		throw new Error(`swaks: not queued:\n${seen}${await new Response(child.stderr).text()}`);
	return { ...queued, transcript: seen };
}

/**
 * Starts a message to `recipient` through Postfix on loopback and breaks the
 * connection off after `bytes` of its DATA, as a device whose network fails
 * mid-scan does. Resolves once the connection is closed.
 */
export async function breakOffMail(sender: string, recipient: string, bytes: number): Promise<void> {
	const replies: string[] = [];
	let wake: (() => void) | null = null;
	const socket = await Bun.connect({
		hostname: "127.0.0.1",
		port: 25,
		socket: {
			data(_socket, chunk) {
				replies.push(
					...chunk
						.toString()
						.split("\r\n")
						.filter((line) => /^\d{3} /.test(line)),
				);
				wake?.();
			},
		},
	});
	// Each command waits for its reply's last line, as an SMTP client without PIPELINING does.
	const reply = async (code: string) => {
		while (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
		const line = replies.shift() ?? "";
		if (!line.startsWith(code)) throw new Error(`SMTP: expected ${code}, got ${line}`);
	};
	await reply("220");
	for (const [command, code] of [
		["EHLO mfp.scan.test.example", "250"],
		[`MAIL FROM:<${sender}>`, "250"],
		[`RCPT TO:<${recipient}>`, "250"],
		["DATA", "354"],
	] as const) {
		socket.write(`${command}\r\n`);
		await reply(code);
	}
	socket.write(`Subject: cut short\r\n\r\n${"a".repeat(bytes)}`);
	socket.flush();
	await Bun.sleep(200);
	socket.end();
}

/** Delivers the deferred mail now, as Postfix's queue manager does once the back-off time has passed. */
export function retryDeferredMail(): void {
	sh(["postqueue", "-f"]);
}

/** The lines of `file` past byte `from` that match `pattern`. */
export function logLines(file: string, from: number, pattern: RegExp): string[] {
	if (!existsSync(file)) return [];
	return readFileSync(file)
		.subarray(from)
		.toString("utf8")
		.split("\n")
		.filter((line) => pattern.test(line));
}

/** Waits until `check` holds, polling every `everyMs`; throws after `timeoutMs`. */
export async function until<T>(
	check: () => T | undefined | Promise<T | undefined>,
	timeoutMs: number,
	everyMs = 50,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
		await Bun.sleep(everyMs);
	}
}

/** Queues `tiff` on the sending modem (ttyIAX1 dials ttyIAX0); returns its job id. */
export function sendFax(tiff: string): string {
	const out = sh(["sendfax", "-n", "-h", "ttyIAX1@localhost", "-d", "5550000", tiff]);
	return /request id is (\d+)/.exec(out)?.[1] ?? "";
}
