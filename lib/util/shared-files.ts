import { chmodSync, mkdirSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";

// The server, the operator's CLI and the receivers (Postfix's pipe, HylaFAX's
// faxrcvd) run as different users that share one group (docs/operations/receivers.md).
// Every file and folder the service creates is theirs to read and write, and
// nobody else's, whatever umask the caller has: Postfix's pipe runs with 077,
// and SQLite creates a database 0644 whatever the umask.
export const SHARED_FILE_MODE = 0o660;
// Set-group-ID, so what is created inside belongs to the folder's group.
export const SHARED_DIR_MODE = 0o2770;

/** mkdir -p; the folders it creates get SHARED_DIR_MODE. */
export function makeSharedDirSync(path: string): void {
	const first = mkdirSync(path, { recursive: true });
	if (first !== undefined) chmodCreated(first, path);
}

export async function makeSharedDir(path: string): Promise<void> {
	const first = await mkdir(path, { recursive: true });
	if (first !== undefined) chmodCreated(first, path);
}

// Every folder from the first one created down to `path`.
function chmodCreated(first: string, path: string): void {
	const top = resolve(first);
	for (let dir = resolve(path); dir.startsWith(top); dir = dirname(dir)) {
		chmodSync(dir, SHARED_DIR_MODE);
		if (dir === top) return;
	}
}

export function shareFileSync(path: string): void {
	chmodSync(path, SHARED_FILE_MODE);
}

export function shareFile(path: string): Promise<void> {
	return chmod(path, SHARED_FILE_MODE);
}
