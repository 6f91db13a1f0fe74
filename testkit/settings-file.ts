import { writeFileSync } from "node:fs";

/** A settings file as bin/testfax and deploy/replication read it: NAME=value lines. */
export function writeSettingsFile(path: string, env: Record<string, string>): void {
	writeFileSync(
		path,
		Object.entries(env)
			.map(([key, value]) => `${key}=${value}\n`)
			.join(""),
	);
}
