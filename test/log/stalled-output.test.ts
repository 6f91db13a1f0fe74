import { afterAll, expect, test } from "bun:test";
import { closeSync, constants, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { KEPT_LINES_RESERVE_BYTES, LOG_BUFFER_BYTES } from "../../lib/log/index.ts";
import { sample } from "../../testkit/prometheus.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";

const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A FIFO the server writes its standard output to, read only when the test chooses. */
function stalledPipe() {
	const path = join(dir, "stdout.fifo");
	Bun.spawnSync(["mkfifo", path]);
	const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	const writeFd = openSync(path, constants.O_WRONLY);
	const chunk = Buffer.alloc(64 * 1024);
	return {
		writeFd,
		/** What the pipe holds now. */
		readAvailable(): string {
			let text = "";
			for (;;) {
				try {
					const read = readSync(readFd, chunk);
					if (read === 0) return text;
					text += chunk.toString("utf8", 0, read);
				} catch {
					return text;
				}
			}
		},
		close() {
			closeSync(readFd);
		},
	};
}

// An access line is some 200 bytes: this many fill the pipe and the buffer
// (less the reserve of the other lines) several times over.
const REQUESTS = Math.ceil(((LOG_BUFFER_BYTES - KEPT_LINES_RESERVE_BYTES) / 200) * 2);

async function droppedOnMetrics(adminUrl: string): Promise<number | undefined> {
	return sample(await (await fetch(`${adminUrl}/metrics`)).text(), "testfax_log_lines_dropped_total");
}

/** Reads the pipe until `done` holds for what was read, polling what it holds. */
async function readUntil(
	pipe: ReturnType<typeof stalledPipe>,
	text: string,
	done: (text: string) => boolean,
) {
	let all = text;
	for (let tries = 0; !done(all); tries++) {
		if (tries > 500) throw new Error(`the log never showed what was awaited: ${all.slice(-500)}`);
		all += pipe.readAvailable();
		if (!done(all)) await Bun.sleep(20);
	}
	return all;
}

test("a log reader that stops reading stops no answer: access lines are dropped, counted, and reported once it reads again", async () => {
	const pipe = stalledPipe();
	const { child, url, adminUrl } = await startServerProcess(
		{
			DATABASE_PATH: join(dir, "faxes.sqlite"),
			STORAGE_DIR: join(dir, "storage"),
			RATE_LIMIT_PER_MINUTE: "1000000",
		},
		{ stdout: pipe.writeFd },
	);
	closeSync(pipe.writeFd);
	try {
		let answered = 0;
		for (let sent = 0; sent < REQUESTS; sent += 100) {
			const batch = await Promise.all(
				Array.from({ length: 100 }, () =>
					fetch(`${url}/api/faxes/fax_nothere1`).then((answer) => answer.status),
				),
			);
			answered += batch.filter((status) => status === 404).length;
		}
		expect(answered).toBe(Math.ceil(REQUESTS / 100) * 100);
		expect((await fetch(`${adminUrl}/healthz`)).status).toBe(200);
		const dropped = (await droppedOnMetrics(adminUrl)) ?? 0;
		expect(dropped).toBeGreaterThan(0);

		// The reader comes back: what was held arrives whole, then the one line
		// that counts the drops; new answers are logged again.
		let text = await readUntil(pipe, "", (all) => all.includes('"msg":"log lines dropped'));
		expect((await fetch(`${url}/api/faxes/fax_after1`)).status).toBe(404);
		text = await readUntil(
			pipe,
			text,
			(all) => all.split('"msg":"request"').length - 1 === answered + 1 - dropped,
		);
		const lines = text
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { msg: string; dropped?: number; level: string });
		const reports = lines.filter((line) => line.msg.startsWith("log lines dropped"));
		expect(reports.map(({ level, dropped: count }) => ({ level, count }))).toEqual([
			{ level: "warn", count: dropped },
		]);
		expect(lines.filter((line) => line.msg === "request").length + dropped).toBe(answered + 1);
		expect(lines.filter((line) => line.msg === "listening")).toHaveLength(1);
		expect(await droppedOnMetrics(adminUrl)).toBe(dropped);
	} finally {
		child.kill("SIGKILL");
		await child.exited;
		pipe.close();
	}
});
