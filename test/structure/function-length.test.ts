import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describeSpan, longFunctions, parseFiles } from "./function-spans.ts";
import { sourceFiles } from "./source-files.ts";

const ROOT = join(import.meta.dir, "../..");
const FOLDERS = ["lib", "routes", "bin", "testkit", "bench", "deploy", "examples", "test"];
const LIMIT = 60;

/** A block of exactly `lines` lines: the opening line, filler, and `close` on a line of its own. */
function block(open: string, lines: number, close = "}"): string {
	return [open, ...Array.from({ length: lines - 2 }, (_, i) => `\tvoid ${i};`), close].join("\n");
}

// The finder's own cases: each kind of function over and at the limit; a describe's body, and what it is not.
const SAMPLES = {
	"kinds.ts": [
		"/**\n * A comment above a function is not part of it.\n */",
		block("export function long() {", 61),
		block("function atLimit() {", 60),
		block("const arrow = async (x: number) => {", 61, "};"),
		block("const named = function inner() {", 61, "};"),
		"class Box {",
		block("constructor() {", 61),
		block("get size(): number {", 61),
		block("set size(value: number) {", 61),
		block("static method(): void {", 61),
		"}",
		block("const object = { shape() {", 61, "} };"),
	].join("\n"),
	"suite.ts": [
		'describe("a group", () => {',
		block('\ttest("one test", () => {', 61, "\t});"),
		block("\tbeforeAll(() => {", 61, "\t});"),
		"});",
		block('describe.each([1, 2])("group %d", (n) => {', 70, "});"),
		block('describe.if(true)("maybe", () => {', 70, "});"),
		block('test.each([1, 2])("case %d", (n) => {', 61, "});"),
		block("describe.if(() => {", 61, '})("decided by a function", () => {});'),
	].join("\n"),
	"plain.mjs": block("export default function () {", 61),
};

const files = await sourceFiles(ROOT, FOLDERS);
const parsed = await parseFiles(ROOT, files, SAMPLES);
const longOnes = (names: string[]) =>
	names.flatMap((name) => {
		const source = parsed.get(name);
		return source ? longFunctions(name, source, LIMIT).map(describeSpan) : [`${name} not parsed`];
	});

describe(`every function of ${FOLDERS.join("/, ")}/`, () => {
	test("is parsed", () => {
		expect(files.filter((file) => !parsed.has(file))).toEqual([]);
		expect(files.length).toBeGreaterThan(400);
	});

	test(`spans at most ${LIMIT} lines, but for the body of a describe(...)`, () => {
		expect(longOnes(files)).toEqual([]);
	});
});

describe("the function length finder", () => {
	test("lists each kind of function over the limit, from its first line to its last", () => {
		expect(longOnes(["kinds.ts", "plain.mjs"])).toEqual([
			"kinds.ts:4 long 61 lines",
			"kinds.ts:125 arrow 61 lines",
			"kinds.ts:186 inner 61 lines",
			"kinds.ts:248 constructor 61 lines",
			"kinds.ts:309 size 61 lines",
			"kinds.ts:370 size 61 lines",
			"kinds.ts:431 method 61 lines",
			"kinds.ts:493 shape 61 lines",
			"plain.mjs:1 (anonymous) 61 lines",
		]);
	});

	// See "Workarounds" in docs/decisions.md: when this fails, the sync API can read the files.
	test("reads through TypeScript's async API: under Bun a child's pipe has no _handle, which the sync one needs", async () => {
		const child = spawn("true", { stdio: ["pipe", "pipe", "inherit"] });
		expect((child.stdout as unknown as { _handle?: unknown })._handle).toBeUndefined();
		await once(child, "exit");
	});

	test("exempts the body of a describe(...) only, not the tests, hooks or head in it", () => {
		expect(longOnes(["suite.ts"])).toEqual([
			"suite.ts:2 test(…) callback 61 lines",
			"suite.ts:63 beforeAll(…) callback 61 lines",
			"suite.ts:265 test.each(…)(…) callback 61 lines",
			"suite.ts:326 describe.if(…) callback 61 lines",
		]);
	});
});
