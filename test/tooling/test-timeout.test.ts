import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { runCommand } from "../../testkit/processes.ts";

// Two test files of 200 ms each, run with a 50 ms `--timeout` under a preload
// that asks for more: the passes show which files the preload's default reached.
async function passesUnder(preload: string): Promise<string[]> {
	const dir = mkdtempSync(join(tmpdir(), "testfax-timeout-"));
	try {
		for (const name of ["a", "b"]) {
			writeFileSync(
				join(dir, `${name}.test.ts`),
				`import { test } from "bun:test";\ntest("${name}", () => Bun.sleep(200));\n`,
			);
		}
		const { stderr } = await runCommand(
			[process.execPath, "test", "--timeout", "50", "--preload", preload, "./a.test.ts", "./b.test.ts"],
			{ cwd: dir, env: childEnv() },
		);
		return [...stderr.matchAll(/^\(pass\) (\w+)/gm)].map((match) => match[1] ?? "");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

test("the bunfig preload gives every test file its 60 s", async () => {
	expect(await passesUnder(join(import.meta.dir, "../../testkit/test-timeout.ts"))).toEqual(["a", "b"]);
});

test("Bun still drops a preload's setDefaultTimeout after the first file (oven-sh/bun#43787): when this fails, call it plainly in testkit/test-timeout.ts", async () => {
	const dir = mkdtempSync(join(tmpdir(), "testfax-preload-"));
	try {
		const preload = join(dir, "preload.ts");
		writeFileSync(preload, `import { setDefaultTimeout } from "bun:test";\nsetDefaultTimeout(30_000);\n`);
		expect(await passesUnder(preload)).toEqual(["a"]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
