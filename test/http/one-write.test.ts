import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { importFaxes } from "../../lib/import/index.ts";
import { ago, faxRecord } from "../../testkit/fixtures.ts";
import { firstChildOf } from "../../testkit/processes.ts";
import { rawExchange } from "../../testkit/raw-http.ts";
import { sendsPerAnswer } from "../../testkit/send-calls.ts";
import { startServerProcess } from "../../testkit/server-process.ts";
import { useRedisServer } from "../../testkit/use-redis.ts";

// Bun 1.4.5 writes an answer of 15 KiB or more that completes after an await
// one fragment per send() (oven-sh/bun pull request 41341, unreleased);
// lib/http/one-write-adapter.ts works around it. These tests count the send()
// calls with strace: the first fails when the workaround stops working, the
// last when Bun no longer needs it.

const redis = useRedisServer();
const dir = mkdtempSync(join(tmpdir(), "testfax-one-write-"));
const DATABASE_PATH = join(dir, "faxes.sqlite");
/** 100 faxes in the last hour: the poll of the client guide answers about 31 KB. */
const POLL = `/api/faxes?since=${ago(3600)}&limit=100`;
const SENDS_PER_ANSWER = 4;
const ANSWERS = 8;

beforeAll(async () => {
	const db = openDatabase(DATABASE_PATH);
	const records = Array.from({ length: 100 }, (_, i) =>
		faxRecord({ received_at: ago(60 + i * 30), sender: `+1 555 000 ${String(i).padStart(4, "0")}` }),
	);
	const imported = await importFaxes(new FaxStore(db), records, Math.floor(Date.now() / 1000));
	db.close();
	if (!imported.ok) throw new Error(imported.errors.join("; "));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts `script` under strace, sends each request of `requests` ANSWERS times
 * over one keep-alive connection, stops the server and returns the send()
 * calls of each answer (the first of each connection left out: it sets the
 * Redis script up) with the bodies received.
 */
async function traced(
	script: string,
	env: Record<string, string>,
	requests: { path: string; headers?: Record<string, string> }[],
): Promise<{ sends: number[]; bodies: string[] }> {
	const log = join(dir, `strace-${crypto.randomUUID()}.log`);
	const wrapper = ["strace", "-f", "-qq", "-yy", "-e", "trace=%network,read,write,writev", "-o", log];
	const server = await startServerProcess(env, { script, wrapper });
	const bodies: string[] = [];
	try {
		for (const { path, headers } of requests) {
			for (let i = 0; i < ANSWERS; i++) {
				const response = await fetch(`${server.url}${path}`, {
					headers: { "user-agent": "testfax-tests/1.0", ...headers },
				});
				bodies.push(await response.text());
			}
		}
	} finally {
		process.kill(await firstChildOf(server.child.pid), "SIGTERM");
		await server.child.exited;
	}
	const port = Number(new URL(server.url).port);
	const counts = sendsPerAnswer(await Bun.file(log).text(), port, redis.server.port);
	return { sends: counts.slice(1), bodies };
}

describe("an answer completed after the Redis round trip leaves in one write", () => {
	test(`the 31 KB poll, compressed or not, and the default list: at most ${SENDS_PER_ANSWER} send() calls each, the Redis command included`, async () => {
		const env = {
			DATABASE_PATH,
			SEED_DEMO: "0",
			PURGE_INTERVAL: "0",
			REDIS_URL: redis.server.url,
			RATE_LIMIT_PREFIX: redis.uniquePrefix(),
			RATE_LIMIT_PER_MINUTE: "1000",
			LOG_LEVEL: "silent",
		};
		const { sends, bodies } = await traced("bin/server.ts", env, [
			{ path: POLL, headers: { "accept-encoding": "identity" } },
			{ path: POLL, headers: { "accept-encoding": "br" } },
			{ path: "/api/faxes", headers: { "accept-encoding": "identity" } },
		]);
		expect(sends).toHaveLength(3 * ANSWERS - 1);
		expect(Math.max(...sends)).toBeLessThanOrEqual(SENDS_PER_ANSWER);
		expect(Buffer.byteLength(bodies[0] ?? "")).toBeGreaterThan(30_000);
		expect(JSON.parse(bodies[0] ?? "")).toHaveLength(100);
	});
});

/** The answer's bytes with the fields that differ between two answers of one server made equal. */
const comparable = (raw: string) =>
	raw
		.replace(/\r\nDate: [^\r]*/, "\r\nDate: -")
		.replace(/\r\nx-request-id: [^\r]*/, "\r\nx-request-id: -")
		.replace(/\r\nx-ratelimit-remaining: \d+/, "\r\nx-ratelimit-remaining: -")
		.replace(/\r\nratelimit: "default";r=\d+;t=\d+/, '\r\nratelimit: "default";r=-;t=-');

async function rawAnswer(url: string, method: string, path: string): Promise<string> {
	const { port } = new URL(url);
	const request = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: testfax-tests/1.0\r\nConnection: close\r\n\r\n`;
	return comparable((await rawExchange(Number(port), request)).raw);
}

describe("the one-write answer is the same bytes", () => {
	test("as Bun's own answer of the same string: status line, fields in their order, Content-Length, body", async () => {
		const [plain, oneWrite] = await Promise.all([
			startServerProcess({}, { script: "testkit/post-await-server.ts" }),
			startServerProcess({ ONE_WRITE: "1" }, { script: "testkit/post-await-server.ts" }),
		]);
		try {
			const [expected, received] = await Promise.all([
				rawAnswer(plain.url, "GET", "/"),
				rawAnswer(oneWrite.url, "GET", "/"),
			]);
			expect(received).toStartWith("HTTP/1.1 200 OK\r\n");
			expect(received).toContain("\r\nContent-Length: ");
			expect(received).toBe(expected);
		} finally {
			plain.child.kill();
			oneWrite.child.kill();
			await Promise.all([plain.child.exited, oneWrite.child.exited]);
		}
	});

	test("from the service: the poll's fields end with Date and Content-Length as Bun frames a string, then the JSON", async () => {
		const server = await startServerProcess({
			DATABASE_PATH,
			SEED_DEMO: "0",
			PURGE_INTERVAL: "0",
			REDIS_URL: redis.server.url,
			RATE_LIMIT_PREFIX: redis.uniquePrefix(),
			LOG_LEVEL: "silent",
		});
		try {
			const get = await rawAnswer(server.url, "GET", POLL);
			const end = get.indexOf("\r\n\r\n") + 4;
			const body = get.slice(end);
			expect(JSON.parse(body)).toHaveLength(100);
			expect(get.slice(0, end)).toStartWith("HTTP/1.1 200 OK\r\n");
			expect(get.slice(0, end)).toEndWith(
				`\r\nDate: -\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
			);
			expect(get).not.toContain("Transfer-Encoding");
		} finally {
			server.child.kill();
			await server.child.exited;
		}
	});
});

describe("Bun's own write of a long answer after an await (oven-sh/bun pull request 41341)", () => {
	test("through the one-write body: one send() per answer", async () => {
		const { sends } = await traced("testkit/post-await-server.ts", { ONE_WRITE: "1" }, [{ path: "/" }]);
		expect(sends).toEqual(Array(ANSWERS - 1).fill(1));
	});

	test("as a plain string: one send() per fragment, still. When this fails, Bun corks such answers itself and lib/http/one-write-adapter.ts can go", async () => {
		const { sends } = await traced("testkit/post-await-server.ts", {}, [{ path: "/" }]);
		expect(Math.min(...sends)).toBeGreaterThan(20);
	});
});
