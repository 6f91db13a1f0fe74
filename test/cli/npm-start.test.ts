import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { childEnv } from "../../testkit/child-env.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { untilListening } from "../../testkit/server-process.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = makeTempDir();
let server = 0;
afterAll(() => {
	// Before the fix the server outlived npm; a failed run must not leave it serving.
	if (server !== 0 && isRunning(server)) process.kill(server, "SIGKILL");
	rmSync(dir, { recursive: true, force: true });
});

/** The processes a process started, from /proc (Linux). */
function childrenOf(pid: number): number[] {
	const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
	return text === "" ? [] : text.split(" ").map(Number);
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

test("SIGTERM to `npm start`, as a supervisor sends it, reaches the server: a held wait is answered and nothing is left running", async () => {
	const npm = Bun.spawn(["npm", "start", "--silent"], {
		cwd: ROOT,
		// No HOST: `npm start` listens on every interface, the documented default.
		env: childEnv({
			PORT: "0",
			ADMIN_PORT: "0",
			SEED_DEMO: "0",
			PURGE_INTERVAL: "0",
			DATABASE_PATH: join(dir, "faxes.sqlite"),
			STORAGE_DIR: join(dir, "storage"),
		}),
		stdout: "ignore",
		stderr: "pipe",
	});
	const log = await untilListening(npm.stderr, "npm start");
	const url = /listening on (\S+)/.exec(log)?.[1] ?? "";
	expect(url).toStartWith("http://0.0.0.0:");
	// Whatever npm runs in between, the server is the one process below npm.
	const below = childrenOf(npm.pid);
	expect(below).toHaveLength(1);
	server = below[0] ?? 0;

	const held = fetch(`${url}/api/faxes?wait=30`, { headers: { "User-Agent": "npm-start-test" } });
	await Bun.sleep(300);
	npm.kill("SIGTERM");
	const answer = await Promise.race([held, Bun.sleep(5000).then(() => null)]);
	expect(answer?.status).toBe(200);
	expect(await answer?.json()).toEqual([]);
	await npm.exited;
	for (let tries = 0; tries < 50 && isRunning(server); tries++) await Bun.sleep(100);
	expect(isRunning(server)).toBe(false);
});
