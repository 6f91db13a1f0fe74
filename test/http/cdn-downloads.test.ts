import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Socket } from "node:net";
import { join } from "node:path";
import { faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { rawExchange } from "../../testkit/raw-http.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const SLUG = "fax_Download01";
const PATH = `/cdn/faxes/${SLUG}.pdf`;
// Far more than the loopback socket buffers hold, so a client that stops reading holds its download open.
const SIZE = 32 * 1024 * 1024;
const PDF = Uint8Array.from({ length: SIZE }, (_, i) => i % 251);

async function startWithPdf(env: Record<string, string>): Promise<TestServer> {
	const server = await startTestServer({ faxes: [faxRecord({ slug: SLUG })], clock: fixedClock, env });
	await Bun.write(join(server.storageDir, "faxes", `${SLUG}.pdf`), PDF);
	return server;
}

/** A download over a raw socket that reads its answer's head and then stops reading, until told. */
function stalledDownload(port: number) {
	const socket = new Socket();
	let received = 0;
	let head = "";
	const closed = new Promise<void>((resolve) => {
		socket.on("close", () => resolve());
		socket.on("error", () => {});
	});
	const started = new Promise<string>((resolve) => {
		socket.on("data", (chunk: Buffer) => {
			if (received === 0) {
				head = chunk.toString("latin1", 0, chunk.indexOf("\r\n\r\n") + 4);
				socket.pause();
				resolve(head);
			}
			received += chunk.length;
		});
	});
	socket.connect(port, "127.0.0.1", () => {
		socket.write(`GET ${PATH} HTTP/1.1\r\nHost: cdn.test\r\nUser-Agent: slow-reader\r\n\r\n`);
	});
	return {
		started,
		/** Reads what is left until the server closes the connection; the bytes received after the head. */
		async drain(): Promise<number> {
			socket.resume();
			await closed;
			return received - head.length;
		},
		/**
		 * Reads in short bursts, `pauseMs` apart, until the whole file is in; the
		 * bytes received after the head. Each burst lasts until some bytes came:
		 * a burst of fixed length read nothing now and then on a loaded machine,
		 * and several such in a row looked idle to the server.
		 */
		async trickle(pauseMs: number): Promise<number> {
			while (received - head.length < SIZE && !socket.destroyed) {
				const before = received;
				socket.resume();
				while (received === before && !socket.destroyed) await Bun.sleep(1);
				socket.pause();
				await Bun.sleep(pauseMs);
			}
			return received - head.length;
		},
		destroy: () => socket.destroy(),
	};
}

function get(server: TestServer, headers: Record<string, string> = {}) {
	return server.request(PATH, { headers });
}

/** Polls until a download answers 200; its status and body length. */
async function untilDownloadAnswers(server: TestServer, deadlineMs: number): Promise<number> {
	const deadline = Date.now() + deadlineMs;
	for (;;) {
		const response = await get(server);
		const body = await response.arrayBuffer();
		if (response.status === 200 || Date.now() > deadline)
			return response.status === 200 ? body.byteLength : -1;
		await Bun.sleep(50);
	}
}

const EVERY_ANSWER = {
	"cache-control": "no-store, private",
	"access-control-allow-origin": "*",
};

describe("downloads under /cdn/faxes/, at most 2 at once", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startWithPdf({ CDN_MAX_DOWNLOADS: "2", IDLE_TIMEOUT_SECONDS: "60" });
	});
	afterAll(() => server.stop());

	test("the whole file, every byte, streamed", async () => {
		const response = await get(server);
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("application/pdf");
		expect(response.headers.get("content-length")).toBe(String(SIZE));
		expect(response.headers.get("cache-control")).toBe(EVERY_ANSWER["cache-control"]);
		expect(response.headers.get("access-control-allow-origin")).toBe("*");
		expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
	});

	test("one byte range is a 206", async () => {
		const middle = await get(server, { range: "bytes=1000-1999" });
		expect(middle.status).toBe(206);
		expect(middle.headers.get("content-range")).toBe(`bytes 1000-1999/${SIZE}`);
		expect(new Uint8Array(await middle.arrayBuffer())).toEqual(PDF.subarray(1000, 2000));
	});

	test("a HEAD answers the length and holds no place", async () => {
		for (let i = 0; i < 4; i++) {
			const head = await server.request(PATH, { method: "HEAD" });
			expect(head.status).toBe(200);
			expect(head.headers.get("content-length")).toBe(String(SIZE));
			expect(head.headers.get("content-type")).toBe("application/pdf");
			expect(await head.text()).toBe("");
		}
		const slow = [stalledDownload(server.port), stalledDownload(server.port)];
		for (const download of slow) expect(await download.started).toStartWith("HTTP/1.1 200 OK\r\n");
		for (const download of slow) download.destroy();
	});

	test("past the cap a download answers 503 with Retry-After while the API answers; a closed download frees its place", async () => {
		const slow = [stalledDownload(server.port), stalledDownload(server.port)];
		for (const download of slow) expect(await download.started).toStartWith("HTTP/1.1 200 OK\r\n");

		const refused = await rawExchange(
			server.port,
			`GET ${PATH} HTTP/1.1\r\nHost: cdn.test\r\nUser-Agent: t\r\nConnection: close\r\n\r\n`,
		);
		expect(refused.status).toBe(503);
		expect(refused.headers).toMatchObject({
			...EVERY_ANSWER,
			"retry-after": "5",
			"content-type": "application/json; charset=utf-8",
		});
		expect(refused.body).toBe('{"message":"Service Unavailable."}');

		const api = await server.request("/api/faxes");
		expect(api.status).toBe(200);
		expect(((await api.json()) as { slug: string }[]).map((fax) => fax.slug)).toEqual([SLUG]);

		slow[0]?.destroy();
		expect(await untilDownloadAnswers(server, 5000)).toBe(SIZE);
		slow[1]?.destroy();
	});
});

describe("a download whose client stops reading", () => {
	let server: TestServer;
	beforeAll(async () => {
		// 2 s, eight times the slow reader's pause: a test process starved of
		// the CPU for over a second (the whole suite on 2 cores, under faketime)
		// was cut at 1 s although it kept reading.
		server = await startWithPdf({ CDN_MAX_DOWNLOADS: "1", IDLE_TIMEOUT_SECONDS: "2" });
	});
	afterAll(() => server.stop());

	test("is cut after IDLE_TIMEOUT_SECONDS, and its place is free again", async () => {
		const slow = stalledDownload(server.port);
		expect(await slow.started).toStartWith("HTTP/1.1 200 OK\r\n");
		expect((await get(server)).status).toBe(503);

		expect(await untilDownloadAnswers(server, 10_000)).toBe(SIZE);
		const received = await slow.drain();
		expect(received).toBeGreaterThan(0);
		expect(received).toBeLessThan(SIZE);
	});

	test("a client that reads slowly but keeps reading gets the whole file", async () => {
		const slow = stalledDownload(server.port);
		expect(await slow.started).toStartWith("HTTP/1.1 200 OK\r\n");
		expect(await slow.trickle(250)).toBe(SIZE);
		slow.destroy();
	});
});
