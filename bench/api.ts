/**
 * `bun run bench`: the API beside its yardsticks at 100,000 and 1,000,000
 * faxes (bench/http.ts), then `fax import` of 1,000,000 records against raw
 * SQLite inserts, with the longest lock it holds (bench/import.ts).
 * Options (environment): BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_FAXES (100000,1000000).
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchHttp } from "./http.ts";
import { benchImport, formatImportBench } from "./import.ts";

const dir = join(tmpdir(), `testfax-bench-${process.pid}`);

try {
	mkdirSync(dir, { recursive: true });
	// The servers close their databases as they exit (benchHttp waits for them); only then is the directory free to go.
	await benchHttp(dir);
	console.log(`\n${formatImportBench(await benchImport())}`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
