import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** Every shell script of the repository, found by its name (.sh) or its first line (#!/bin/sh, bash, dash). */
async function shellScripts(): Promise<string[]> {
	const found: string[] = [];
	for await (const path of new Bun.Glob("**/*").scan({ cwd: ROOT, dot: true })) {
		if (/(^|\/)(node_modules|\.git)\//.test(path)) continue;
		if (path.endsWith(".sh")) {
			found.push(path);
			continue;
		}
		const head = await Bun.file(join(ROOT, path)).slice(0, 64).text();
		if (/^#!\s*\S*\/(env\s+)?(sh|bash|dash)\b/.test(head)) found.push(path);
	}
	return found.sort();
}

test("every shell script the project ships passes shellcheck", async () => {
	const scripts = await shellScripts();
	// The finder finds them: a sample of each kind.
	expect(scripts).toEqual(
		expect.arrayContaining([
			".ci/run",
			"bin/testfax",
			"deploy/receivers/install.sh",
			"deploy/receivers/hylafax/faxrcvd",
			"examples/wait-for-fax.sh",
		]),
	);
	const run = Bun.spawnSync(["shellcheck", "--external-sources", ...scripts], { cwd: ROOT });
	expect(run.stdout.toString()).toBe("");
	expect(run.exitCode).toBe(0);
});
