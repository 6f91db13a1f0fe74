import type { Database } from "bun:sqlite";
import { fstatSync, openSync, readSync, statSync } from "node:fs";

/**
 * A number that changes whenever any connection commits to the database, read
 * before every request so that the next request sees another process's write.
 */
export interface CommitCounter {
	/** Which way the counter reads commits: the WAL index header in the -shm file, or SQLite's data_version. */
	readonly source: FreshnessSource;
	count(): number;
}

export type CommitSource = "wal-index" | "data_version";
export const COMMIT_SOURCES: readonly CommitSource[] = ["wal-index", "data_version"];
/** Every way a store learns of commits: SQLite's, and PostgreSQL's fax_commits row. */
export type FreshnessSource = CommitSource | "commit-row";

// The WAL index header (https://www.sqlite.org/walformat.html, "The WAL-Index
// Header"): its first copy is 48 bytes of native-order 32-bit words, starting
// with the format version; byte 12 is isInit. A commit by any connection
// rewrites it (iChange is incremented, mxFrame moves), and so does a WAL reset.
const HEADER_WORDS = 12;
const WAL_INDEX_FORMAT = 3007000;
const IS_INIT_BYTE = 12;

/**
 * Reads the WAL index header the database's connections share through the
 * `-shm` file: one pread where `PRAGMA data_version` runs a read transaction
 * (by profile about a quarter of the CPU of a cached answer).
 *
 * A torn read (a writer halfway through the header) only differs from the
 * last one, which costs one needless refresh. A short read (a file cut short)
 * counts as a change on every call until the header is whole again.
 */
class WalIndexCounter implements CommitCounter {
	readonly source = "wal-index";
	readonly #fd: number;
	readonly #header = new Uint32Array(HEADER_WORDS);
	readonly #bytes = new Uint8Array(this.#header.buffer);
	readonly #seen = new Uint32Array(HEADER_WORDS);
	#count = 0;

	constructor(fd: number) {
		this.#fd = fd;
		this.#read();
		this.#seen.set(this.#header);
	}

	/** False when the header could not be read whole. */
	#read(): boolean {
		return readSync(this.#fd, this.#bytes, 0, this.#bytes.length, 0) === this.#bytes.length;
	}

	count(): number {
		if (!this.#read()) return ++this.#count;
		const header = this.#header;
		const seen = this.#seen;
		for (let i = 0; i < HEADER_WORDS; i++) {
			if (header[i] !== seen[i]) {
				seen.set(header);
				this.#count++;
				break;
			}
		}
		return this.#count;
	}
}

/** SQLite's own counter of other connections' commits, for a database without a WAL index file. */
class DataVersionCounter implements CommitCounter {
	readonly source = "data_version";
	readonly #statement;

	constructor(db: Database) {
		this.#statement = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
	}

	count(): number {
		return this.#statement.get()?.data_version ?? 0;
	}
}

// One descriptor per file, open for the life of the process. Closing any
// descriptor of a file drops every POSIX lock this process holds on it, and
// SQLite's connections hold theirs on the -shm file for as long as they are
// open: closing ours would let another process take the WAL index from under
// them (SQLITE_PROTOCOL errors, a reset index).
const walIndexFiles = new Map<string, number>();

function walIndexFile(db: Database): number | null {
	const mode = db.prepare<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
	if (mode !== "wal" || db.filename === "" || db.filename === ":memory:") return null;
	const path = `${db.filename}-shm`;
	try {
		const known = walIndexFiles.get(path);
		// A file deleted and made anew at the same path is another file.
		if (known !== undefined && fstatSync(known).ino === statSync(path).ino) return known;
		const fd = openSync(path, "r");
		walIndexFiles.set(path, fd);
		return fd;
	} catch {
		return null;
	}
}

function isWalIndex(fd: number): boolean {
	const header = new Uint32Array(HEADER_WORDS);
	const bytes = new Uint8Array(header.buffer);
	return (
		readSync(fd, bytes, 0, bytes.length, 0) === bytes.length &&
		header[0] === WAL_INDEX_FORMAT &&
		bytes[IS_INIT_BYTE] === 1
	);
}

/**
 * The cheapest counter the database allows, or data_version when `preferred`
 * says so (for a file system whose -shm file is not what its writers share).
 * Own commits are counted too by the WAL index; callers add their own commits
 * for data_version.
 */
export function commitCounter(db: Database, preferred: CommitSource = "wal-index"): CommitCounter {
	const fallback = new DataVersionCounter(db);
	// A read opens the connection's WAL index, so that the file exists and stays held.
	fallback.count();
	if (preferred === "data_version") return fallback;
	const fd = walIndexFile(db);
	return fd !== null && isWalIndex(fd) ? new WalIndexCounter(fd) : fallback;
}
