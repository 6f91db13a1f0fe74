/**
 * `bun run bench`: the API beside its yardsticks at 100,000 and 1,000,000
 * faxes (bench/http.ts), then the time of `fax import` of 1,000,000 records
 * against raw SQLite inserts.
 * Options (environment): BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_FAXES (100000,1000000).
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../lib/db/index.ts";
import { benchHttp } from "./http.ts";

const IMPORT_RECORDS = 1_000_000;
const root = join(import.meta.dir, "..");
const dir = join(tmpdir(), `testfax-bench-${process.pid}`);

const SENDERS = ["+1 555 123 4567", "+49 30 12345678", "ACME 42", "john.doe@example.co.uk", null];

function records(count: number, spreadSeconds: number) {
	const now = Date.now();
	return Array.from({ length: count }, (_, i) => ({
		source: i % 3 === 0 ? "email" : "phone",
		sender: SENDERS[i % SENDERS.length] === "ACME 42" ? `ACME ${i}` : (SENDERS[i % SENDERS.length] ?? null),
		received_at: new Date(now - Math.floor((i / count) * spreadSeconds * 1000)).toISOString(),
		page_count: i % 17 === 0 ? null : 1 + (i % 5),
		file_size: i % 17 === 0 ? null : 40_000 + i,
	}));
}

async function benchImport(): Promise<void> {
	const file = join(dir, "import.json");
	const data = records(IMPORT_RECORDS, 29 * 86_400);
	await Bun.write(file, JSON.stringify(data));

	const rawPath = join(dir, "raw.sqlite");
	const raw = openDatabase(rawPath);
	const insert = raw.prepare(
		"INSERT INTO faxes (slug, source, sender, sender_key, received_at, page_count, file_size) VALUES (?, ?, ?, ?, ?, ?, ?)",
	);
	let started = performance.now();
	const parsed = JSON.parse(await Bun.file(file).text()) as ReturnType<typeof records>;
	raw.transaction(() => {
		parsed.forEach((r, i) => {
			insert.run(
				`fax_raw${i}`,
				r.source,
				r.sender,
				r.sender,
				Date.parse(r.received_at) / 1000,
				r.page_count,
				r.file_size,
			);
		});
	})();
	const rawSeconds = (performance.now() - started) / 1000;
	raw.close();

	started = performance.now();
	const child = Bun.spawn([process.execPath, "bin/fax.ts", "import", file], {
		cwd: root,
		env: { PATH: process.env.PATH ?? "", DATABASE_PATH: join(dir, "import.sqlite") },
		stdout: "pipe",
		stderr: "inherit",
	});
	const code = await child.exited;
	const importSeconds = (performance.now() - started) / 1000;
	if (code !== 0) throw new Error(`fax import exited ${code}`);
	console.log(
		`\nfax import of ${IMPORT_RECORDS} records: ${importSeconds.toFixed(1)} s; baseline (parse + raw prepared INSERTs, no validation): ${rawSeconds.toFixed(1)} s (${(importSeconds / rawSeconds).toFixed(2)}× baseline)`,
	);
}

try {
	mkdirSync(dir, { recursive: true });
	// The servers close their databases as they exit (benchHttp waits for them); only then is the directory free to go.
	await benchHttp(dir);
	await benchImport();
} finally {
	rmSync(dir, { recursive: true, force: true });
}
