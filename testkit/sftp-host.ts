import {
	chmodSync,
	chownSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { childrenOf } from "./processes.ts";

/** A second "host" for a replica: an sshd of its own on loopback, serving SFTP to a throwaway user. */
export interface SftpHost {
	/** `sftp://USER@127.0.0.1:PORT/PATH`, a folder the user owns. */
	url: string;
	/** The client's private key (Litestream's key-path). */
	keyPath: string;
	/** Where the replica lands on this machine, to look at. */
	replicaDir: string;
	/** The replica host vanishes: sshd and every session of it SIGKILLed. */
	kill(): Promise<void>;
	/** It comes back on the same port. */
	start(): Promise<void>;
	/** It hangs: sshd and every session of it SIGSTOPped (connections are still accepted by the kernel). */
	pause(): Promise<void>;
	resume(): Promise<void>;
	/** Its replica folder, and every folder in it, made unwritable (false) or writable again (true). */
	writable(yes: boolean): void;
	stop(): Promise<void>;
}

/** A process and all its descendants, parents first. */
async function processTree(pid: number): Promise<number[]> {
	const tree = [pid];
	for (let i = 0; i < tree.length; i++) tree.push(...(await childrenOf(tree[i] ?? 0).catch(() => [])));
	return tree;
}

async function signalTree(pid: number, signal: NodeJS.Signals): Promise<void> {
	for (const each of await processTree(pid)) {
		try {
			process.kill(each, signal);
		} catch {
			// Gone meanwhile: a session that ended.
		}
	}
}

function foldersUnder(dir: string): string[] {
	const below = readdirSync(dir, { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.flatMap((entry) => foldersUnder(join(dir, entry.name)));
	return [dir, ...below];
}

function run(command: string[]): void {
	const result = Bun.spawnSync(command, { stderr: "pipe", stdout: "pipe" });
	if (result.exitCode !== 0) throw new Error(`${command.join(" ")}: ${result.stderr.toString()}`);
}

function sshdConfig(dir: string, port: number, user: string): string {
	return [
		`Port ${port}`,
		"ListenAddress 127.0.0.1",
		`HostKey ${join(dir, "host_ed25519")}`,
		`PidFile ${join(dir, "sshd.pid")}`,
		`AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
		// The keys live in the test's folder, owned by the test's user.
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		`AllowUsers ${user}`,
		"Subsystem sftp internal-sftp",
		"ForceCommand internal-sftp",
		"",
	].join("\n");
}

/** A system user for the replica host, with no password login; the returned function deletes it and `dir`. */
function makeReplicaUser(dir: string, user: string, home: string): () => void {
	// Password "*": no password login, but not locked ("!"), which sshd without PAM refuses outright.
	run([
		"useradd",
		"--system",
		"--no-create-home",
		"--home-dir",
		home,
		"--shell",
		"/usr/sbin/nologin",
		"--password",
		"*",
		user,
	]);
	return () => {
		run(["userdel", user]);
		rmSync(dir, { recursive: true, force: true });
	};
}

/** The user's home, sshd's host key, the client's key and sshd's configuration; the port sshd is to listen on. */
async function prepareHost(dir: string, user: string, home: string): Promise<number> {
	mkdirSync(home);
	const uid = Number(Bun.spawnSync(["id", "-u", user]).stdout.toString());
	chownSync(home, uid, uid);
	run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_ed25519")]);
	run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_ed25519")]);
	writeFileSync(join(dir, "authorized_keys"), await Bun.file(join(dir, "client_ed25519.pub")).text());
	const port = await freePort();
	writeFileSync(join(dir, "sshd_config"), sshdConfig(dir, port, user));
	return port;
}

/**
 * Starts sshd (needs root: it switches to the user) with its own host key and
 * configuration in a folder of its own, for a user made for this run; stop()
 * deletes both. The folder is readable by that user, as sshd reads
 * authorized_keys as the user.
 * The system's sshd and /etc/ssh are not touched; only sshd's privilege
 * separation folder /run/sshd is created when missing, as Debian's own
 * service does. `tag` tells apart the users of several hosts of one test.
 */
export async function startSftpHost(tag = ""): Promise<SftpHost> {
	const dir = mkdtempSync(join(tmpdir(), "testfax-sftp-"));
	const user = `tfrepl${process.pid}${tag}`;
	const home = join(dir, "replica-host");
	chmodSync(dir, 0o755);
	mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
	const stopUser = makeReplicaUser(dir, user, home);
	try {
		const port = await prepareHost(dir, user, home);
		const spawnSshd = () =>
			Bun.spawn(["/usr/sbin/sshd", "-D", "-e", "-f", join(dir, "sshd_config")], {
				stdout: "ignore",
				stderr: "pipe",
			});
		let sshd = spawnSshd();
		await untilListening(port, sshd);
		const replicaDir = join(home, "replica");
		const modes = new Map<string, number>();
		return {
			url: `sftp://${user}@127.0.0.1:${port}${home}/replica`,
			keyPath: join(dir, "client_ed25519"),
			replicaDir,
			async kill() {
				await signalTree(sshd.pid, "SIGKILL");
				await sshd.exited;
			},
			async start() {
				sshd = spawnSshd();
				await untilListening(port, sshd);
			},
			pause: () => signalTree(sshd.pid, "SIGSTOP"),
			resume: () => signalTree(sshd.pid, "SIGCONT"),
			writable(yes) {
				for (const folder of foldersUnder(replicaDir)) {
					if (!yes) modes.set(folder, statSync(folder).mode & 0o7777);
					chmodSync(folder, yes ? (modes.get(folder) ?? 0o755) : 0o555);
				}
			},
			async stop() {
				await signalTree(sshd.pid, "SIGCONT");
				sshd.kill("SIGTERM");
				await sshd.exited;
				// A session child of sshd may outlive it by a moment and keep the user busy.
				for (let tries = 0; ; tries++) {
					try {
						return stopUser();
					} catch (error) {
						if (tries === 50) throw error;
						await Bun.sleep(100);
					}
				}
			},
		};
	} catch (error) {
		stopUser();
		throw error;
	}
}

async function untilListening(port: number, sshd: Bun.Subprocess<"ignore", "ignore", "pipe">): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (Date.now() < deadline) {
		if (sshd.exitCode !== null) throw new Error(`sshd exited: ${await new Response(sshd.stderr).text()}`);
		const open = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
			(socket) => {
				socket.end();
				return true;
			},
			() => false,
		);
		if (open) return;
		await Bun.sleep(50);
	}
	throw new Error(`sshd did not listen on ${port}`);
}
