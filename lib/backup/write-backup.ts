import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { FaxStore } from "../db/index.ts";
import { archiveFaxFiles } from "../storage/index.ts";

/** The one file of a backup directory: what deploy/replication/restore.sh takes back. */
export const BACKUP_DATABASE_NAME = "faxes.sqlite";

/**
 * Writes a consistent copy of the whole state into `dir` (created if needed,
 * refused when it already holds a backup): first the files only the disk
 * holds go into the database, then VACUUM INTO copies it under one read
 * transaction, so the server, the receivers and the purge write on meanwhile.
 * Returns the backup's path and how many listed faxes had no files on disk.
 */
export async function writeBackup(
	store: FaxStore,
	storageDir: string,
	dir: string,
): Promise<{ path: string; missing: number }> {
	const { missing } = await archiveFaxFiles(store, storageDir);
	await mkdir(dir, { recursive: true });
	const path = join(dir, BACKUP_DATABASE_NAME);
	if (await Bun.file(path).exists()) throw new Error(`${path} exists already: choose an empty directory`);
	await store.copyTo(path);
	return { path, missing };
}
