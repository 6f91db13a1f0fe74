import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { removeStaleFaketimeFiles } from "../../testkit/faketime-files.ts";

const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const pairOf = (pid: number) => [`/dev/shm/sem.faketime_sem_${pid}`, `/dev/shm/faketime_shm_${pid}`];

function onFakeClock(script: string) {
	return Bun.spawn([process.execPath, "-e", script], {
		env: { PATH: process.env.PATH ?? "", LD_PRELOAD: LIBFAKETIME, FAKETIME: "+1d" },
		stdout: "ignore",
		stderr: "ignore",
	});
}

test("Bun under libfaketime leaves its semaphore and shared memory when it exits; they are removed once it is gone, a live process's kept", async () => {
	const exited = onFakeClock("0");
	await exited.exited;
	const live = onFakeClock("await Bun.sleep(10_000)");
	await Bun.sleep(300);
	// Fails once Bun runs libfaketime's destructor at exit, and the sweep is no longer needed.
	expect(pairOf(exited.pid).map(existsSync)).toEqual([true, true]);
	expect(pairOf(live.pid).map(existsSync)).toEqual([true, true]);
	expect(removeStaleFaketimeFiles()).toBeGreaterThanOrEqual(2);
	expect(pairOf(exited.pid).map(existsSync)).toEqual([false, false]);
	expect(pairOf(live.pid).map(existsSync)).toEqual([true, true]);
	live.kill();
	await live.exited;
	removeStaleFaketimeFiles();
	expect(pairOf(live.pid).map(existsSync)).toEqual([false, false]);
});
