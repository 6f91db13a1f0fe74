import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { realClockEnv } from "./child-env.ts";
import { removeStaleFaketimeFiles } from "./faketime-files.ts";

const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/**
 * A wall clock for a child process that the test steps while it runs, as NTP
 * or a restored VM steps a server's: libfaketime reads the offset from a file
 * at every call (Debian package `faketime`). The monotonic clock is left
 * alone, as a real step leaves it. The offset starts at this test process's
 * own (non-zero when the suite itself runs under libfaketime), so fixtures
 * relative to `NOW_MS` hold for the child too.
 */
export function steppedClock(dir: string) {
	// A child whose PID has a pair left by an earlier one could not make its own.
	removeStaleFaketimeFiles();
	const file = join(dir, "faketime-offset");
	const real = Bun.spawnSync(["date", "+%s.%N"], { env: realClockEnv() });
	const base = Math.round(Date.now() / 1000 - Number(real.stdout.toString()));
	const write = (offset: number) => writeFileSync(file, `${offset >= 0 ? "+" : ""}${offset}\n`);
	write(base);
	return {
		/** Environment that puts a child on this clock. */
		env: {
			LD_PRELOAD: LIBFAKETIME,
			FAKETIME_TIMESTAMP_FILE: file,
			FAKETIME_NO_CACHE: "1",
			FAKETIME_DONT_FAKE_MONOTONIC: "1",
		},
		/** Sets the child's wall clock `seconds` away from the test's. */
		stepTo(seconds: number) {
			write(base + seconds);
		},
	};
}
