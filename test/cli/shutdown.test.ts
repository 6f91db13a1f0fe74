import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { importFaxes } from "../../lib/import/index.ts";
import { faxRecord } from "../../testkit/fixtures.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

const redis = useRedisServer();
const dir = makeTempDir();
const SLUG = "fax_BigFile01";
// Far larger than what the loopback socket buffers hold, so a client that stops reading holds the answer open.
const PDF_BYTES = 32 * 1024 * 1024;
const env = {
	DATABASE_PATH: join(dir, "faxes.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
};

beforeAll(async () => {
	const db = openDatabase(env.DATABASE_PATH);
	const now = Math.floor(Date.now() / 1000);
	const imported = await importFaxes(
		new FaxStore(db),
		[faxRecord({ slug: SLUG, file_size: PDF_BYTES })],
		now,
	);
	db.close();
	if (!imported.ok) throw new Error(imported.errors.join("; "));
	await Bun.write(join(env.STORAGE_DIR, "faxes", `${SLUG}.pdf`), new Uint8Array(PDF_BYTES));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A download over a raw socket that reads only when told, like a slow client. */
function slowDownload(url: string) {
	const { hostname, port } = new URL(url);
	const socket = new Socket();
	let received = 0;
	let head = "";
	const ended = new Promise<void>((resolve, reject) => {
		socket.on("end", resolve);
		socket.on("error", reject);
	});
	const started = new Promise<void>((resolve) => {
		socket.on("data", (chunk: Buffer) => {
			if (received === 0) {
				head = chunk.toString("latin1", 0, chunk.indexOf("\r\n\r\n") + 4);
				socket.pause();
				resolve();
			}
			received += chunk.length;
		});
	});
	socket.connect(Number(port), hostname, () => {
		socket.write(
			`GET /cdn/faxes/${SLUG}.pdf HTTP/1.1\r\nHost: test\r\nUser-Agent: t\r\nConnection: close\r\n\r\n`,
		);
	});
	return {
		started,
		/** Reads the rest of the answer; resolves with the body's length. */
		async finish(): Promise<number> {
			socket.resume();
			await ended;
			return received - head.length;
		},
		get head() {
			return head;
		},
		destroy: () => socket.destroy(),
	};
}

async function readyStatus(adminUrl: string): Promise<number> {
	return (await fetch(`${adminUrl}/readyz`)).status;
}

async function untilNotReady(adminUrl: string): Promise<number> {
	const deadline = Date.now() + 5000;
	for (;;) {
		const status = await readyStatus(adminUrl);
		if (status !== 200 || Date.now() > deadline) return status;
		await Bun.sleep(5);
	}
}

async function refused(url: string): Promise<boolean> {
	try {
		await fetch(`${url}/api/faxes`);
		return false;
	} catch (error) {
		return (error as { code?: string }).code === "ECONNREFUSED";
	}
}

function logLines(text: string): Record<string, unknown>[] {
	return text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("SIGTERM: not ready at once, no new connections, the download under way completes, one line, exit 0", async () => {
	const server = await startServerProcess(env, { stdout: "pipe" });
	const download = slowDownload(server.url);
	await download.started;
	expect(download.head).toStartWith("HTTP/1.1 200 OK\r\n");
	expect(download.head.toLowerCase()).toContain(`content-length: ${PDF_BYTES}\r\n`);

	server.child.kill("SIGTERM");
	expect(await untilNotReady(server.adminUrl)).toBe(503);
	expect(await (await fetch(`${server.adminUrl}/readyz`)).json()).toEqual({
		status: "draining",
		database: "not checked",
		documents: "not checked",
		rate_limit: "memory",
		redis_mode: null,
	});
	expect(await refused(server.url)).toBe(true);
	expect(server.child.exitCode).toBeNull();

	expect(await download.finish()).toBe(PDF_BYTES);
	const [code, stdout] = await Promise.all([server.child.exited, new Response(server.child.stdout).text()]);
	expect(code).toBe(0);
	const last = logLines(stdout).at(-1);
	expect(last?.msg).toBe("shutdown: every accepted request answered; Redis and the database closed");
	expect([last?.signal, last?.in_flight, last?.cut]).toEqual(["SIGTERM", 1, 0]);
	expect(logLines(stdout).filter((line) => String(line.msg).startsWith("shutdown"))).toHaveLength(1);
});

test("SIGTERM while a request waits on a slow Redis: it gets its whole answer", async () => {
	const server = await startServerProcess({
		...env,
		REDIS_URL: redis.server.url,
		RATE_LIMIT_PREFIX: redis.uniquePrefix(),
		REDIS_TIMEOUT_MS: "5000",
	});
	await (await fetch(`${server.url}/api/faxes`)).arrayBuffer();
	await redis.checker.call("CLIENT", "PAUSE", "1000", "WRITE");
	const waiting = fetch(`${server.url}/api/faxes`).then(async (response) => ({
		status: response.status,
		slugs: ((await response.json()) as { slug: string }[]).map((fax) => fax.slug),
	}));
	await Bun.sleep(100);
	server.child.kill("SIGTERM");
	expect(await waiting).toEqual({ status: 200, slugs: [SLUG] });
	expect(await server.child.exited).toBe(0);
});

test("a second signal during the drain ends the process at once with a non-zero code", async () => {
	const server = await startServerProcess({ ...env, SHUTDOWN_TIMEOUT_SECONDS: "60" });
	const download = slowDownload(server.url);
	await download.started;
	server.child.kill("SIGTERM");
	expect(await untilNotReady(server.adminUrl)).toBe(503);
	server.child.kill("SIGINT");
	expect(await server.child.exited).toBe(130);
	download.destroy();
});

test("past SHUTDOWN_TIMEOUT_SECONDS the drain cuts what is still open, says so, and exits 0", async () => {
	const server = await startServerProcess({ ...env, SHUTDOWN_TIMEOUT_SECONDS: "1" }, { stdout: "pipe" });
	const download = slowDownload(server.url);
	await download.started;
	server.child.kill("SIGTERM");
	const [code, stdout] = await Promise.all([server.child.exited, new Response(server.child.stdout).text()]);
	expect(code).toBe(0);
	const last = logLines(stdout).at(-1);
	expect(last?.level).toBe("warn");
	expect([last?.in_flight, last?.cut]).toEqual([1, 1]);
	download.destroy();
});

test("SHUTDOWN_DELAY_SECONDS: not ready at once, still answering until the delay ends, then closed", async () => {
	const server = await startServerProcess({ ...env, SHUTDOWN_DELAY_SECONDS: "1" });
	server.child.kill("SIGTERM");
	expect(await untilNotReady(server.adminUrl)).toBe(503);
	// A fresh connection: an earlier test's server may have had this port, and a pooled socket to it is dead.
	expect((await fetch(`${server.url}/api/faxes/${SLUG}`, { keepalive: false })).status).toBe(200);
	expect(await server.child.exited).toBe(0);
	expect(await refused(server.url)).toBe(true);
});
