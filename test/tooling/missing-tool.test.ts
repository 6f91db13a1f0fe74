import { expect, test } from "bun:test";
import { requireTool, runCommand } from "../../testkit/processes.ts";

test("a tool that is not installed is named in one line with its Debian package, before anything runs", () => {
	expect(() => runCommand(["testfax-no-such-tool"], { cwd: "/", env: {} })).toThrow(
		"testfax-no-such-tool is not installed: apt-get install testfax-no-such-tool (docs/development.md lists every tool; bash .ci/run installs them)",
	);
	// The tools whose package has another name: the ones a newcomer met without it.
	const path = process.env.PATH;
	process.env.PATH = "/nonexistent";
	try {
		expect(() => requireTool("amtool")).toThrow(
			/^amtool is not installed: apt-get install prometheus-alertmanager \(/,
		);
	} finally {
		process.env.PATH = path;
	}
	expect(() => requireTool("amtool")).not.toThrow();
});
