import { chmodSync, chownSync, mkdirSync } from "node:fs";

function run(command: string[]): string {
	const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
	if (result.exitCode !== 0) throw new Error(`${command.join(" ")}: ${result.stderr.toString()}`);
	return result.stdout.toString();
}

/** A system user made for one test, as `testfax` runs the service in production; needs root. */
export interface ServiceUser {
	name: string;
	/** setpriv execs the command itself, so a signal to the child's PID reaches the service's process. */
	wrapper: string[];
	/** A folder only this user may use (0700). */
	ownedFolder(path: string): void;
	/** Hands a file to the user (a key it reads). */
	give(path: string): void;
	remove(): void;
}

export function createServiceUser(name: string): ServiceUser {
	run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]);
	const uid = Number(run(["id", "-u", name]));
	const gid = Number(run(["id", "-g", name]));
	return {
		name,
		wrapper: ["setpriv", "--reuid", name, "--regid", name, "--clear-groups", "--"],
		ownedFolder(path) {
			mkdirSync(path);
			chownSync(path, uid, gid);
			chmodSync(path, 0o700);
		},
		give(path) {
			chownSync(path, uid, gid);
		},
		remove() {
			Bun.spawnSync(["userdel", name]);
		},
	};
}
