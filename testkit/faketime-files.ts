import { existsSync, readdirSync, rmSync } from "node:fs";

const SHM = "/dev/shm";
const FAKETIME_FILE = /^(?:sem\.faketime_sem_|faketime_shm_)(\d+)$/;

/**
 * Removes the semaphores and shared memory libfaketime left in /dev/shm for
 * processes that are gone. libfaketime names a pair after each process that
 * loads it without the faketime wrapper (the children on a stepped clock),
 * and Bun exits without running libfaketime's destructor, so every such
 * child leaves its pair behind. The faketime wrapper of a later run whose
 * PID is the same then refuses to start ("sem_open: File exists"), and PIDs
 * come round again within a run of the suite. Returns how many were removed.
 */
export function removeStaleFaketimeFiles(): number {
	if (!existsSync(SHM)) return 0;
	let removed = 0;
	for (const name of readdirSync(SHM)) {
		const pid = FAKETIME_FILE.exec(name)?.[1];
		if (pid === undefined || existsSync(`/proc/${pid}`)) continue;
		rmSync(`${SHM}/${name}`, { force: true });
		removed++;
	}
	return removed;
}

if (import.meta.main) removeStaleFaketimeFiles();
