/**
 * The receivers of docs/operations.md ("Receivers"), installed on this
 * machine from the files of deploy/receivers, the way an operator does on
 * Debian 12, for `npm run test:receivers`: real Postfix, real HylaFAX with two
 * iaxmodems calling each other over IAX2 on loopback, a syslog daemon to read
 * what HylaFAX and the receivers log. Needs root, as installing them does.
 */
import {
	chmodSync,
	cpSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
/** Where docs/operations.md installs the service; here a link to this checkout. */
export const APP = "/opt/testfax-api";
export const SETTINGS = "/etc/testfax-api/testfax.env";
export const SPOOL = "/var/spool/hylafax";
const RECEIVERS = join(ROOT, "deploy/receivers");

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

/**
 * The operator's first steps: the service's user in the fax group, the code
 * at /opt/testfax-api. The checkout is bind-mounted there rather than linked:
 * the receivers' users must reach it, and a checkout under /root is no place
 * `uucp` may enter. Returns the undoing.
 */
export function installApp(): () => void {
	if (Bun.spawnSync(["id", "testfax"]).exitCode !== 0) {
		sh([
			"useradd",
			"--system",
			"--user-group",
			"--no-create-home",
			"--shell",
			"/usr/sbin/nologin",
			"testfax",
		]);
	}
	sh(["usermod", "-aG", "uucp", "testfax"]);
	if (isLink(APP)) rmSync(APP);
	Bun.spawnSync(["umount", APP]);
	mkdirSync(APP, { recursive: true });
	if (readdirSync(APP).length > 0) throw new Error(`${APP} holds an installation: not touching it`);
	sh(["mount", "--bind", ROOT, APP]);
	// Lazily: the server it ran may still be exiting.
	return () => void Bun.spawnSync(["umount", "--lazy", APP]);
}

function isLink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch {
		return false;
	}
}

/** The data folder of the settings, owned by the service and shared with the fax group, its storage on a small disk of its own. */
export function makeDataDir(storageBytes: number): { dir: string; storage: string; release(): void } {
	const dir = sh(["mktemp", "-d", "/var/tmp/testfax-receivers-XXXXXX"]).trim();
	const storage = join(dir, "storage");
	mkdirSync(storage);
	sh(["mount", "-t", "tmpfs", "-o", `size=${storageBytes}`, "tmpfs", storage]);
	for (const path of [dir, storage]) {
		sh(["chown", "testfax:uucp", path]);
		chmodSync(path, 0o2770);
	}
	return {
		dir,
		storage,
		release() {
			Bun.spawnSync(["umount", storage]);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** The shipped settings file with `values` in place of its own, installed as the docs say. */
export function writeSettings(values: Record<string, string>): void {
	const template = readFileSync(join(RECEIVERS, "testfax.env"), "utf8");
	const kept = template.split("\n").filter((line) => !Object.hasOwn(values, line.split("=")[0] ?? ""));
	const text = `${kept.join("\n").trimEnd()}\n${Object.entries(values)
		.map(([name, value]) => `${name}=${value}`)
		.join("\n")}\n`;
	mkdirSync("/etc/testfax-api", { recursive: true });
	writeFileSync(SETTINGS, text);
	sh(["chown", "root:uucp", SETTINGS]);
	chmodSync(SETTINGS, 0o640);
}

/** Postfix as deploy/receivers/postfix says, listening on loopback only, logging to `logFile`. */
export function configurePostfix(logFile: string): void {
	for (const line of settingLines(join(RECEIVERS, "postfix/main.cf"))) sh(["postconf", "-e", line]);
	for (const line of [
		"inet_interfaces = loopback-only",
		"inet_protocols = ipv4",
		`maillog_file = ${logFile}`,
		"myhostname = mx.test.example",
	]) {
		sh(["postconf", "-e", line]);
	}
	const masterCf = "/etc/postfix/master.cf";
	const master = readFileSync(masterCf, "utf8").replace(/^testfax\s[\s\S]*?(?=^\S|(?![\s\S]))/m, "");
	writeFileSync(
		masterCf,
		`${master.trimEnd()}\n${readFileSync(join(RECEIVERS, "postfix/master.cf"), "utf8")}`,
	);
	mkdirSync("/etc/postfix/testfax", { recursive: true });
	for (const map of ["transport", "relay_recipients"]) {
		cpSync(join(RECEIVERS, "postfix", map), `/etc/postfix/testfax/${map}`);
		sh(["postmap", `/etc/postfix/testfax/${map}`]);
	}
	const running = Bun.spawnSync(["postfix", "status"]).exitCode === 0;
	sh(["postfix", running ? "reload" : "start"]);
}

function settingLines(path: string): string[] {
	return readFileSync(path, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** Sends a prepared message through Postfix on loopback; resolves once Postfix has queued it. */
export async function sendMail(message: string): Promise<{ queuedAtMs: number; queueId: string }> {
	const child = Bun.spawn(["swaks", "--server", "127.0.0.1:25", "--to", "fax@test.example", "--data", "-"], {
		stdin: new Blob([message]),
		stdout: "pipe",
		stderr: "pipe",
	});
	const decoder = new TextDecoder();
	let seen = "";
	let queued: { queuedAtMs: number; queueId: string } | null = null;
	for await (const chunk of child.stdout) {
		seen += decoder.decode(chunk, { stream: true });
		const match = /^<- +250 2\.0\.0 Ok: queued as (\S+)$/m.exec(seen);
		if (queued === null && match) queued = { queuedAtMs: Date.now(), queueId: match[1] ?? "" };
	}
	await child.exited;
	if (queued === null)
		throw new Error(`swaks: not queued:\n${seen}${await new Response(child.stderr).text()}`);
	return queued;
}

/** Delivers the deferred mail now, as Postfix's queue manager does once the back-off time has passed. */
export function retryDeferredMail(): void {
	sh(["postqueue", "-f"]);
}

/** The log lines of `file` that match `pattern`. */
export function logLines(file: string, pattern: RegExp): string[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
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

/** A syslog daemon writing every message to `file`, as the HylaFAX daemons need one. */
export function startSyslog(file: string): Bun.Subprocess {
	Bun.spawnSync(["pkill", "-x", "syslogd"]);
	return Bun.spawn(["busybox", "syslogd", "-n", "-O", file], { stdout: "ignore", stderr: "ignore" });
}

const MODEMS = { receiver: { tty: "ttyIAX0", port: 4570 }, sender: { tty: "ttyIAX1", port: 4571 } } as const;

/**
 * HylaFAX's spool for two modems: ttyIAX0 answers and hands what it receives
 * to deploy/receivers/hylafax/faxrcvd (FaxRcvdCmd); ttyIAX1 dials it. The
 * sender's iaxmodem has the receiver's port as its server: no PBX.
 */
export function configureHylafax(): void {
	// With its owners: hfaxd reads hosts.hfaxd (uucp's, 0600) as uucp.
	sh(["cp", "-a", "/etc/hylafax/.", join(SPOOL, "etc")]);
	const example = readFileSync("/usr/share/doc/iaxmodem/examples/config.ttyIAX", "utf8");
	mkdirSync("/etc/iaxmodem", { recursive: true });
	for (const [role, { tty, port }] of Object.entries(MODEMS)) {
		writeFileSync(
			`/etc/iaxmodem/${tty}`,
			[
				`device /dev/${tty}`,
				"owner uucp:uucp",
				"mode 660",
				`port ${port}`,
				"refresh 0",
				role === "sender" ? `server 127.0.0.1:${MODEMS.receiver.port}` : "server 127.0.0.1",
				"peername iaxmodem",
				"secret password",
				"cidname Test Sender",
				"cidnumber 15550100",
				"codec slinear",
				"",
			].join("\n"),
		);
		const extra = role === "receiver" ? readFileSync(join(RECEIVERS, "hylafax/config.modem"), "utf8") : "";
		writeFileSync(join(SPOOL, "etc", `config.${tty}`), `${example}\n${extra}`);
		sh(["chown", "uucp:uucp", join(SPOOL, "etc", `config.${tty}`)]);
	}
	// A new install's queue: faxes of an earlier run would be listed by the sweep.
	for (const name of readdirSync(join(SPOOL, "recvq"))) {
		if (name.endsWith(".tif")) rmSync(join(SPOOL, "recvq", name));
	}
	// Started by root, faxgetty would create the sequence files root's and
	// 0600, and then fail to number the next call as uucp.
	for (const seqf of ["log/seqf", "recvq/seqf"]) {
		const path = join(SPOOL, seqf);
		if (!existsSync(path)) writeFileSync(path, "0");
		sh(["chown", "uucp:uucp", path]);
	}
}

export interface FaxLine {
	/** Queues `tiff` on the sending modem; resolves with its job id. */
	send(tiff: string): string;
	stop(): void;
}

/** iaxmodem, faxq, hfaxd and one faxgetty per modem, each with no environment, as init starts them. */
export async function startFaxLine(): Promise<FaxLine> {
	for (const name of ["faxgetty", "iaxmodem", "faxq", "hfaxd"]) Bun.spawnSync(["pkill", "-x", name]);
	await Bun.sleep(500);
	const quiet = { stdout: "ignore", stderr: "ignore", env: {} } as const;
	const children = Object.values(MODEMS).map(({ tty }) => Bun.spawn(["iaxmodem", tty], quiet));
	await Bun.sleep(500);
	sh(["env", "-i", "/usr/sbin/faxq"]);
	sh(["env", "-i", "/usr/sbin/hfaxd", "-i", "4559"]);
	children.push(
		...Object.values(MODEMS).map(({ tty }) => Bun.spawn(["env", "-i", "/usr/sbin/faxgetty", tty], quiet)),
	);
	await until(
		() => (sh(["faxstat", "-s"]).match(/Running and idle/g)?.length === 2 ? true : undefined),
		60_000,
		500,
	);
	return {
		send(tiff) {
			const out = sh(["sendfax", "-n", "-h", `${MODEMS.sender.tty}@localhost`, "-d", "5550000", tiff]);
			return /request id is (\d+)/.exec(out)?.[1] ?? "";
		},
		stop() {
			for (const child of children) child.kill();
			Bun.spawnSync(["pkill", "-x", "faxq"]);
			Bun.spawnSync(["pkill", "-x", "hfaxd"]);
		},
	};
}
