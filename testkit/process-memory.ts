import { readFileSync } from "node:fs";

/** A process's resident memory now, in KiB (VmRSS of /proc/PID/status, Linux). */
export function rssKiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
	if (kib === undefined) throw new Error(`process ${pid} has no VmRSS: has it exited?`);
	return Number(kib);
}

/**
 * Reads a process's resident memory every `everyMs` until stopped; `stop`
 * returns the highest it read, in KiB. A peak between two reads goes unseen,
 * so the interval is kept well under how long a load lasts.
 */
export function watchPeakRss(pid: number, everyMs = 50): { stop(): number } {
	let peak = rssKiB(pid);
	const timer = setInterval(() => {
		peak = Math.max(peak, rssKiB(pid));
	}, everyMs);
	return {
		stop() {
			clearInterval(timer);
			return Math.max(peak, rssKiB(pid));
		},
	};
}
