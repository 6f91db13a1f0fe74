import { chmodSync, mkdtempSync, rmdirSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** The Bun this process runs, as seen from `app`, this checkout at another path. */
export function bunIn(app: string): string {
	return process.execPath.startsWith(`${ROOT}/`)
		? join(app, relative(ROOT, process.execPath))
		: process.execPath;
}

/**
 * This checkout bind-mounted at a path every user can reach, for tests that
 * run the service as a user of its own: a clone under /root (CI's, say) is
 * closed to everyone else by /root's mode, whatever the checkout's own.
 * Needs root.
 */
export function mountCheckout(): { app: string; bun: string; unmount: () => void } {
	const app = mkdtempSync("/var/tmp/testfax-checkout-");
	chmodSync(app, 0o755);
	const mounted = Bun.spawnSync(["mount", "--bind", ROOT, app], { stderr: "pipe" });
	if (mounted.exitCode !== 0) throw new Error(`mount --bind ${ROOT}: ${mounted.stderr.toString()}`);
	return {
		app,
		bun: bunIn(app),
		unmount() {
			Bun.spawnSync(["umount", app]);
			rmdirSync(app);
		},
	};
}
