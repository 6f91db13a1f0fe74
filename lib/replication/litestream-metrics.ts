import { readdir, readFile, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Litestream 0.3.13's WAL positions for one database, each as
 * index * 2^32 + byte offset so that they order within a generation: `local`
 * is how far it has copied the database's WAL into its shadow WAL, `replica`
 * how far the replica has confirmed; undefined until this process has
 * confirmed anything.
 */
export interface Positions {
	local: number;
	replica: number | undefined;
}

const INDEX = 2 ** 32;

function gauge(metrics: string, name: string): number | undefined {
	const match = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, "m").exec(metrics);
	return match ? Number(match[1]) : undefined;
}

/** The replica's position from Litestream's /metrics text. */
export function replicaPosition(metrics: string): number | undefined {
	const index = gauge(metrics, "litestream_replica_wal_index");
	const offset = gauge(metrics, "litestream_replica_wal_offset");
	return index === undefined || offset === undefined ? undefined : index * INDEX + offset;
}

function metaPath(databasePath: string): string {
	return join(dirname(databasePath), `.${basename(databasePath)}-litestream`);
}

/**
 * Makes the next Litestream begin a new generation (as when it finds none):
 * an SFTP session stuck under the stopped one may still write into the
 * current generation's files on the replica once it wakes, so the next
 * process must not append to them.
 */
export async function forgetGeneration(databasePath: string): Promise<void> {
	await rm(join(metaPath(databasePath), "generation"), { force: true });
}

/**
 * The local position, from Litestream's shadow WAL beside the database
 * (`.NAME-litestream/generations/GEN/wal/INDEX.wal`; its size is the offset
 * the replica reports). Not from /metrics: `litestream_shadow_wal_size` is
 * the size of every shadow WAL file kept, not the current one's, so it stays
 * megabytes ahead of the replica after the first checkpoint.
 */
export async function localPosition(
	databasePath: string,
): Promise<{ generation: string; position: number } | undefined> {
	const meta = metaPath(databasePath);
	try {
		const generation = (await readFile(join(meta, "generation"), "utf8")).trim();
		const dir = join(meta, "generations", generation, "wal");
		const newest = (await readdir(dir))
			.filter((name) => /^[0-9a-f]{8}\.wal$/.test(name))
			.sort()
			.at(-1);
		if (generation === "" || newest === undefined) return undefined;
		const size = (await stat(join(dir, newest))).size;
		return { generation, position: Number.parseInt(newest, 16) * INDEX + size };
	} catch {
		// Not replicating yet, or a file rotated away meanwhile: the next look sees it.
		return undefined;
	}
}
