/**
 * `bun run bench:import`: `fax import` of 1,000,000 records against a raw
 * yardstick: the same file parsed and its rows inserted with one prepared
 * INSERT in one transaction into the same schema, in file order, without
 * validation. Both in
 * random and in sorted received_at order, each run in a fresh process on a
 * fresh database. While `fax import` runs, a second process takes the write
 * lock again and again, as `fax ingest` would, and records the longest it
 * waited: the longest the import held the lock. On a shared machine one run
 * swings with the load, so the yardstick and the import alternate for a few
 * rounds and the medians are compared.
 * Options (environment): BENCH_IMPORT_RECORDS (1000000), BENCH_IMPORT_ROUNDS (3).
 */
import { Database } from "bun:sqlite";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../lib/db/index.ts";
import { storedSenderKey } from "../lib/fax/index.ts";
import { runCommand } from "../testkit/processes.ts";

const ROOT = join(import.meta.dir, "..");
const SPREAD_SECONDS = 29 * 86_400;
const SENDERS = ["+1 555 123 4567", "+49 30 12345678", "ACME", "john.doe@example.co.uk", null];
// The lock prober's pause between two takes of the lock, and its retry interval
// while the lock is held: far inside the import's gap between batches.
const PROBE_PAUSE_MS = 5;
const PROBE_RETRY_MS = 1;

export type ImportOrder = "random" | "sorted";

export interface ImportMeasurement {
	order: ImportOrder;
	records: number;
	/** Each round's time, in the order run. */
	rawSeconds: number[];
	importSeconds: number[];
	/**
	 * Longest write transaction of the import, as it reports, over all rounds:
	 * an upper bound of the lock it held, as it includes the WAL checkpoint
	 * SQLite runs right after a commit, once the lock is released.
	 */
	longestTransactionMs: number;
	/** Longest wait of another writer for the lock while an import ran, over all rounds. */
	longestWaitMs: number;
	/** Times the other writer took the lock during the imports. */
	lockTakes: number;
}

interface ImportRecord {
	source: "phone" | "email";
	sender: string | null;
	received_at: string;
	page_count: number | null;
	file_size: number | null;
}

/** `count` records over the last 29 days, in random or ascending time order. */
function makeRecords(count: number, order: ImportOrder): ImportRecord[] {
	const now = Date.now();
	const times = Array.from({ length: count }, () => now - Math.floor(Math.random() * SPREAD_SECONDS * 1000));
	if (order === "sorted") times.sort((a, b) => a - b);
	return times.map((time, i) => {
		const sender = SENDERS[i % SENDERS.length] ?? null;
		const processable = i % 17 !== 0;
		return {
			source: i % 3 === 0 ? "email" : "phone",
			sender: sender === "ACME" ? `ACME ${i}` : sender,
			received_at: new Date(time).toISOString(),
			page_count: processable ? 1 + (i % 5) : null,
			file_size: processable ? 40_000 + i : null,
		};
	});
}

/**
 * The yardstick, in a process of its own: parse, then one transaction of
 * prepared INSERTs in file order. Its slugs are a counter (fax_raw0,
 * fax_raw1, ...), which keeps its writes to the slug index close together: the
 * cheapest load of these rows. Random slugs would cost it writes all over.
 */
async function rawInsert(file: string, databasePath: string): Promise<void> {
	const db = openDatabase(databasePath);
	const insert = db.prepare(
		"INSERT INTO faxes (slug, source, sender, sender_key, received_at, page_count, file_size) VALUES (?, ?, ?, ?, ?, ?, ?)",
	);
	const records = JSON.parse(await Bun.file(file).text()) as ImportRecord[];
	db.transaction(() => {
		records.forEach((record, i) => {
			insert.run(
				`fax_raw${i}`,
				record.source,
				record.sender,
				storedSenderKey(record.sender),
				Date.parse(record.received_at) / 1000,
				record.page_count,
				record.file_size,
			);
		});
	})();
	db.close();
}

/**
 * Another writer, in a process of its own: takes the write lock (BEGIN
 * IMMEDIATE, retried every millisecond) and lets it go at once, again and
 * again; prints its longest wait as a JSON line whenever it grows.
 */
async function probeLock(databasePath: string): Promise<never> {
	const db = new Database(databasePath);
	db.exec("PRAGMA busy_timeout = 0");
	let longestMs = 0;
	let takes = 0;
	for (;;) {
		const asked = performance.now();
		for (;;) {
			try {
				db.exec("BEGIN IMMEDIATE");
				break;
			} catch {
				await Bun.sleep(PROBE_RETRY_MS);
			}
		}
		const waited = performance.now() - asked;
		db.exec("COMMIT");
		takes++;
		if (waited > longestMs || takes % 100 === 0) {
			longestMs = Math.max(longestMs, waited);
			console.log(JSON.stringify({ longestMs, takes }));
		}
		await Bun.sleep(PROBE_PAUSE_MS);
	}
}

async function timed(
	command: string[],
	env: Record<string, string>,
): Promise<{ seconds: number; stdout: string }> {
	const started = performance.now();
	const { code, stdout, stderr } = await runCommand(command, { cwd: ROOT, env });
	if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${stderr}`);
	return { seconds: (performance.now() - started) / 1000, stdout };
}

async function fresh(path: string): Promise<string> {
	for (const suffix of ["", "-wal", "-shm"]) await rm(`${path}${suffix}`, { force: true });
	return path;
}

/** One `fax import` with the lock prober beside it. */
async function importWithProbe(
	file: string,
	importPath: string,
): Promise<{ seconds: number; transactionMs: number; longestMs: number; takes: number }> {
	openDatabase(importPath).close();
	const probe = Bun.spawn([process.execPath, import.meta.path, "--probe", importPath], {
		stdout: "pipe",
		stderr: "inherit",
	});
	const probeOutput = new Response(probe.stdout).text();
	let imported: { seconds: number; stdout: string };
	try {
		imported = await timed([process.execPath, "bin/fax.ts", "import", file], {
			DATABASE_PATH: importPath,
		});
	} finally {
		probe.kill();
	}
	const lines = (await probeOutput).trim().split("\n");
	const { longestMs, takes } = JSON.parse(lines.at(-1) ?? "{}") as { longestMs: number; takes: number };
	const transactionMs = Number(/longest write transaction (\d+) ms/.exec(imported.stdout)?.[1] ?? Number.NaN);
	return { seconds: imported.seconds, transactionMs, longestMs, takes };
}

async function measureOrder(
	dir: string,
	records: number,
	order: ImportOrder,
	rounds: number,
): Promise<ImportMeasurement> {
	const file = join(dir, `${order}.json`);
	await Bun.write(file, JSON.stringify(makeRecords(records, order)));
	Bun.gc(true);
	const measured: ImportMeasurement = {
		order,
		records,
		rawSeconds: [],
		importSeconds: [],
		longestTransactionMs: 0,
		longestWaitMs: 0,
		lockTakes: 0,
	};
	for (let round = 0; round < rounds; round++) {
		const rawPath = await fresh(join(dir, `${order}-raw.sqlite`));
		measured.rawSeconds.push(
			(await timed([process.execPath, import.meta.path, "--raw", file, rawPath], {})).seconds,
		);
		const imported = await importWithProbe(file, await fresh(join(dir, `${order}-import.sqlite`)));
		measured.importSeconds.push(imported.seconds);
		measured.longestTransactionMs = Math.max(measured.longestTransactionMs, imported.transactionMs);
		measured.longestWaitMs = Math.max(measured.longestWaitMs, imported.longestMs);
		measured.lockTakes += imported.takes;
	}
	await rm(file);
	return measured;
}

/** Measures `fax import` and the yardstick, random order first, in a temporary directory. */
export async function benchImport(
	records = Number(process.env.BENCH_IMPORT_RECORDS ?? 1_000_000),
	rounds = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3),
): Promise<ImportMeasurement[]> {
	const dir = await mkdtemp(join(tmpdir(), "testfax-bench-import-"));
	try {
		const measured: ImportMeasurement[] = [];
		for (const order of ["random", "sorted"] as const) {
			measured.push(await measureOrder(dir, records, order, rounds));
		}
		return measured;
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

function median(values: number[]): number {
	const sorted = values.toSorted((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? (sorted[middle] ?? 0)
		: ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const seconds = (values: number[]) => values.map((value) => value.toFixed(1)).join(" ");

/** The table: medians side by side, their ratio, the longest lock, and every round's times. */
export function formatImportBench(measured: ImportMeasurement[]): string {
	const lines = [
		"order    records   raw INSERT (median)   fax import (median)   import / raw   longest txn   other writer waited   rounds: raw | import (s)",
	];
	for (const m of measured) {
		const raw = median(m.rawSeconds);
		const imported = median(m.importSeconds);
		lines.push(
			[
				m.order.padEnd(6),
				m.records.toLocaleString("en-US").padStart(10),
				`${raw.toFixed(1)} s`.padStart(21),
				`${imported.toFixed(1)} s`.padStart(21),
				`${(imported / raw).toFixed(2)}×`.padStart(14),
				`${m.longestTransactionMs.toFixed(0)} ms`.padStart(13),
				`${m.longestWaitMs.toFixed(0)} ms (of ${m.lockTakes} takes)`.padStart(24),
				`   ${seconds(m.rawSeconds)} | ${seconds(m.importSeconds)}`,
			].join(" "),
		);
	}
	return lines.join("\n");
}

if (import.meta.main) {
	const [mode, first = "", second = ""] = process.argv.slice(2);
	if (mode === "--raw") {
		await rawInsert(first, second);
	} else if (mode === "--probe") {
		await probeLock(first);
	} else {
		console.log(
			"fax import against raw prepared INSERTs in one transaction (same file, same schema); a second process takes the write lock meanwhile",
		);
		const load = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
		const loadBefore = await load();
		const measured = await benchImport();
		console.log(formatImportBench(measured));
		console.log(`load average before: ${loadBefore}, after: ${await load()}`);
	}
}
