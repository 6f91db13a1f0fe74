import { expect, test } from "bun:test";
import { type CommandIO, runCli } from "../../lib/cli/index.ts";

function io(lines: string[]): CommandIO {
	return {
		env: {},
		out: (text) => lines.push(`out: ${text}`),
		err: (text) => lines.push(`err: ${text}`),
		readStdin: async () => new Uint8Array(),
		clock: () => 0,
	};
}

test("a command that fails unexpectedly is one line on standard error and exit 1, never a stack trace", async () => {
	const lines: string[] = [];
	const failing = {
		name: "boom",
		summary: "fails",
		help: "Usage: fax boom",
		run: async () => {
			throw new TypeError("something broke");
		},
	};
	expect(await runCli([failing], ["boom"], io(lines))).toBe(1);
	expect(lines).toEqual(["err: fax boom: something broke"]);
});

test("a bad configuration is exit 2 and names the variable", async () => {
	const lines: string[] = [];
	const needsConfig = {
		name: "conf",
		summary: "reads the environment",
		help: "Usage: fax conf",
		run: async () => {
			const { loadConfig } = await import("../../lib/config.ts");
			loadConfig({ PORT: "99999" });
			return 0;
		},
	};
	expect(await runCli([needsConfig], ["conf"], io(lines))).toBe(2);
	expect(lines).toEqual(['err: configuration error: PORT must be an integer from 0 to 65535, got "99999"']);
});
