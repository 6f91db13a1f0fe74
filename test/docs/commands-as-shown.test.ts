/**
 * Every command a new user copies from the README, the development guide or a
 * `--help` text runs on a fresh clone as written: its program is on a fresh
 * machine's PATH (npm's node_modules/.bin is not), the npm script, `fax`
 * command, test file and test name it names exist.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { loadCommands } from "../../lib/cli/index.ts";

const ROOT = join(import.meta.dir, "../..");
const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
/** The PATH of a fresh shell: whatever npm or bun put in front of it is dropped. */
const FRESH_PATH = (process.env.PATH ?? "")
	.split(delimiter)
	.filter((dir) => !dir.includes("node_modules") && !dir.includes(".bun"))
	.join(delimiter);

/** The command lines of the ```sh blocks of a Markdown file, comments dropped. */
function shellLines(markdown: string): string[] {
	const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? "");
	return blocks
		.flatMap((block) => block.split("\n"))
		.map((line) => line.replace(/\s+#.*$/, "").trim())
		.filter((line) => line !== "" && !line.startsWith("#"));
}

/** The lines under "Example:" of a help text. */
function exampleLines(help: string): string[] {
	const examples = /\nExamples?:\n((?: {2}.*\n?)+)/.exec(help)?.[1] ?? "";
	return examples
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
}

/** The words of one simple command: a line split at &&, | and ;, quotes kept whole. */
function simpleCommands(line: string): string[][] {
	return line
		.split(/&&|\||;/)
		.map((part) =>
			[...part.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((word) => word[0].replace(/^'(.*)'$/, "$1")),
		)
		.map((words) => words.filter((_, index) => !words.slice(0, index + 1).every((w) => /^\w+=/.test(w))))
		.filter((words) => words.length > 0);
}

const FAX_COMMANDS = new Set((await loadCommands(undefined)).map((command) => command.name));

/** Why `words` would not run as shown on a fresh clone, or null. */
function problem(words: string[]): string | null {
	const [program = "", ...rest] = words;
	if (Bun.which(program, { PATH: FRESH_PATH }) === null) return `${program} is not on a fresh machine's PATH`;
	if (program === "npm" && rest[0] === "run" && !Object.hasOwn(scripts, rest[1] ?? ""))
		return `no npm script ${rest[1]}`;
	if (program === "npm" && rest[0] === "run" && rest[1] === "fax" && !FAX_COMMANDS.has(rest[3] ?? "")) {
		return `no fax command ${rest[3]}`;
	}
	if (program === "npx" && rest[0] === "bun" && rest[1] === "test") {
		const file = rest[2];
		if (file !== undefined && !existsSync(join(ROOT, file))) return `no test file ${file}`;
		const name = rest[rest.indexOf("-t") + 1];
		if (file && rest.includes("-t") && !readFileSync(join(ROOT, file), "utf8").includes(name ?? "")) {
			return `no test named ${name} in ${file}`;
		}
	}
	return null;
}

const SOURCES: [string, string[]][] = [
	["README.md", shellLines(readFileSync(join(ROOT, "README.md"), "utf8"))],
	["docs/development.md", shellLines(readFileSync(join(ROOT, "docs/development.md"), "utf8"))],
	...(await loadCommands(undefined)).map((command): [string, string[]] => [
		`fax ${command.name} --help`,
		exampleLines(command.help),
	]),
];

test.each(SOURCES)("the commands of %s run as shown on a fresh clone", (_source, lines) => {
	const problems = lines.flatMap((line) =>
		simpleCommands(line).flatMap((words) => {
			const found = problem(words);
			return found === null ? [] : [`${line}: ${found}`];
		}),
	);
	expect(problems).toEqual([]);
});

test("the sources hold commands to check", () => {
	const lines = Object.fromEntries(SOURCES);
	expect(lines["README.md"]?.length).toBeGreaterThan(8);
	expect(lines["fax wait --help"]).toEqual([
		"npm run fax -- wait --base-url http://localhost:3000 --from +15551234567",
	]);
	expect(problem(["bun", "test", "test/http/list.test.ts"])).toBe("bun is not on a fresh machine's PATH");
	expect(problem(["npm", "run", "no-such-script"])).toBe("no npm script no-such-script");
});
