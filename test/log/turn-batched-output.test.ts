import { expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TurnBatchedOutput } from "../../lib/log/turn-batched-output.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the lines of a turn are written together when it ends, in order", async () => {
	const dir = mkdtempSync(join(tmpdir(), "testfax-log-"));
	const path = join(dir, "out.log");
	const fd = openSync(path, "w");
	try {
		const output = new TurnBatchedOutput(fd);
		output.write("one\n");
		output.write("two\n");
		expect(readFileSync(path, "utf8")).toBe("");
		await nextTurn();
		expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
		output.write("three\n");
		await nextTurn();
		expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree\n");
	} finally {
		closeSync(fd);
		rmSync(dir, { recursive: true });
	}
});

test("a turn's lines beyond the buffer, lines longer than it and any UTF-8 arrive whole and in order", async () => {
	const dir = mkdtempSync(join(tmpdir(), "testfax-log-"));
	const path = join(dir, "out.log");
	const fd = openSync(path, "w");
	try {
		const output = new TurnBatchedOutput(fd);
		const lines = Array.from({ length: 3000 }, (_, i) =>
			i === 1500 ? `${"long é😀".repeat(40_000)}\n` : `${i} ${"Zürich ☎ 😀 ".repeat(i % 9)}\n`,
		);
		for (const line of lines) output.write(line);
		await nextTurn();
		expect(readFileSync(path, "utf8")).toBe(lines.join(""));
	} finally {
		closeSync(fd);
		rmSync(dir, { recursive: true });
	}
});

test("a destination that cannot be written ends the log, not the process", async () => {
	const dir = mkdtempSync(join(tmpdir(), "testfax-log-"));
	const fd = openSync(join(dir, "out.log"), "w");
	closeSync(fd);
	rmSync(dir, { recursive: true });
	const output = new TurnBatchedOutput(fd);
	output.write("lost\n");
	expect(() => output.flush()).not.toThrow();
	output.write("also lost\n");
	await nextTurn();
});

for (const end of ["exit", "throw"]) {
	test(`every line logged right before ${end === "exit" ? "process.exit()" : "an uncaught error"} reaches a piped standard output`, async () => {
		const child = Bun.spawn([process.execPath, join(import.meta.dir, "log-then-exit.ts"), end, "2000"], {
			stdout: "pipe",
			stderr: "pipe",
		});
		const [code, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
		const lines = stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { i: number });
		expect(code).toBe(end === "exit" ? 3 : 1);
		expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
	});
}
