import { expect, test } from "bun:test";
import { join } from "node:path";
import { runCommand } from "../../testkit/processes.ts";

const ROOT = join(import.meta.dir, "../..");
const bin = (name: string) => join(ROOT, "node_modules/.bin", name);

// Both linters as users of the description run them, from the project's own
// devDependencies (no download), with Redocly's telemetry and update check off.
test("openapi.json lints clean in Redocly's recommended rules: no error, no warning", async () => {
	const { code, stdout, stderr } = await runCommand(
		[bin("redocly"), "lint", "openapi.json", "--format=json"],
		{
			cwd: ROOT,
			env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
		},
	);
	expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
	const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
	expect(report.problems).toEqual([]);
	expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
});

test("openapi.json lints clean in Spectral's spectral:oas rules (.spectral.yaml): no error, no warning", async () => {
	const { code, stdout } = await runCommand(
		[
			bin("spectral"),
			"lint",
			"openapi.json",
			"--ruleset",
			".spectral.yaml",
			"--fail-severity=hint",
			"-f",
			"json",
		],
		{ cwd: ROOT, env: {} },
	);
	expect(JSON.parse(stdout.slice(0, stdout.lastIndexOf("]") + 1))).toEqual([]);
	expect(code).toBe(0);
});
