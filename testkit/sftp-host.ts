import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

/** A second "host" for a replica: an sshd of its own on loopback, serving SFTP to a throwaway user. */
export interface SftpHost {
	/** `sftp://USER@127.0.0.1:PORT/PATH`, a folder the user owns. */
	url: string;
	/** The client's private key (Litestream's key-path). */
	keyPath: string;
	/** Where the replica lands on this machine, to look at. */
	replicaDir: string;
	stop(): Promise<void>;
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

/**
 * Starts sshd (needs root: it switches to the user) with its own host key and
 * configuration in a folder of its own, for a user made for this run; stop()
 * deletes both. The folder is readable by that user, as sshd reads
 * authorized_keys as the user.
 * The system's sshd and /etc/ssh are not touched; only sshd's privilege
 * separation folder /run/sshd is created when missing, as Debian's own
 * service does.
 */
export async function startSftpHost(): Promise<SftpHost> {
	const dir = mkdtempSync(join(tmpdir(), "testfax-sftp-"));
	const user = `tfrepl${process.pid}`;
	const home = join(dir, "replica-host");
	chmodSync(dir, 0o755);
	mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
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
	const stopUser = () => {
		run(["userdel", user]);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		mkdirSync(home);
		const uid = Number(Bun.spawnSync(["id", "-u", user]).stdout.toString());
		chownSync(home, uid, uid);
		run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_ed25519")]);
		run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_ed25519")]);
		writeFileSync(join(dir, "authorized_keys"), await Bun.file(join(dir, "client_ed25519.pub")).text());
		const port = await freePort();
		writeFileSync(join(dir, "sshd_config"), sshdConfig(dir, port, user));
		const sshd = Bun.spawn(["/usr/sbin/sshd", "-D", "-e", "-f", join(dir, "sshd_config")], {
			stdout: "ignore",
			stderr: "pipe",
		});
		await untilListening(port, sshd);
		return {
			url: `sftp://${user}@127.0.0.1:${port}${home}/replica`,
			keyPath: join(dir, "client_ed25519"),
			replicaDir: join(home, "replica"),
			async stop() {
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
