import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../../testkit/server.ts";
import { spawnServer, startServerProcess } from "../../testkit/server-process.ts";

const dir = makeTempDir();

/** Message and fax count of each JSON log line. */
function logLines(text: string): [unknown, unknown][] {
	return text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { msg?: unknown; faxes?: unknown })
		.map((line) => [line.msg, line.faxes]);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));
test.each([
	["PORT", "70000", 'PORT must be an integer from 0 to 65535, got "70000"'],
	["RATE_LIMIT_PER_MINUTE", "0", 'RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000000, got "0"'],
	["SEED_DEMO", "yes", 'SEED_DEMO must be 1 or 0, got "yes"'],
	["CDN_BASE_URL", "cdn.example", 'CDN_BASE_URL must be an absolute http(s) URL, got "cdn.example"'],
	["REDIS_URL", "localhost:6379", 'REDIS_URL must be a redis:// or rediss:// URL, got "localhost:6379"'],
	["TRUST_PROXY", "10.0.0.0/33", "TRUST_PROXY"],
])("a bad %s stops the server with exit 2 and a message naming it", async (name, value, message) => {
	const child = spawnServer({ DATABASE_PATH: join(dir, "bad.sqlite"), [name]: value }, { stdout: "pipe" });
	const [code, stderr, stdout] = await Promise.all([
		child.exited,
		new Response(child.stderr).text(),
		new Response(child.stdout).text(),
	]);
	expect(code).toBe(2);
	expect(stdout).toBe("");
	expect(stderr).toStartWith(`configuration error: ${message}`);
	expect(stderr.split("\n").length).toBe(2);
});

test("SEED_DEMO loads the demo faxes into an empty database once", async () => {
	const env = { DATABASE_PATH: join(dir, "demo.sqlite"), STORAGE_DIR: join(dir, "storage") };
	const first = await startServerProcess(env, { stdout: "pipe" });
	const list = (await (await fetch(`${first.url}/api/faxes`)).json()) as {
		slug: string;
		from: string | null;
	}[];
	expect(list.map((fax) => fax.slug)).toEqual([
		"fax_DemoPhone01",
		"fax_DemoScanOk01",
		"fax_DemoStation1",
		"fax_DemoScanRej1",
		"fax_DemoScanSpm1",
		"fax_DemoEmail001",
		"fax_DemoScanClk1",
		"fax_DemoUnknown1",
		"fax_DemoTiffNoF1",
		"fax_DemoStation2",
		"fax_DemoBroken01",
		"fax_DemoTiffOnly",
		"fax_DemoTooBig01",
		"fax_DemoBerlin01",
	]);
	const demo = (await (await fetch(`${first.url}/api/faxes/fax_DemoStation1`)).json()) as {
		page_count: number;
		file_size: number;
		pdf_url: string;
		thumbnail_url: string;
	};
	const pdf = await fetch(demo.pdf_url.replace("http://localhost:0", first.url));
	expect([pdf.status, pdf.headers.get("content-type")]).toEqual([200, "application/pdf"]);
	expect((await pdf.arrayBuffer()).byteLength).toBe(demo.file_size);
	expect(demo.page_count).toBe(2);
	const thumbnail = await fetch(demo.thumbnail_url.replace("http://localhost:0", first.url));
	expect([thumbnail.status, thumbnail.headers.get("content-type")]).toEqual([200, "image/jpeg"]);
	expect((await fetch(`${first.url}/api/faxes/fax_DemoRemoved1`)).status).toBe(410);
	expect((await fetch(`${first.url}/api/faxes/fax_DemoExpired1`)).status).toBe(410);
	first.child.kill("SIGTERM");
	const [code, firstLog] = await Promise.all([first.child.exited, new Response(first.child.stdout).text()]);
	expect(code).toBe(0);
	expect(logLines(firstLog)).toContainEqual(["loaded the demo faxes into the empty database", 16]);

	const second = await startServerProcess(env, { stdout: "pipe" });
	const again = (await (await fetch(`${second.url}/api/faxes?limit=100`)).json()) as unknown[];
	expect(again.length).toBe(14);
	second.child.kill("SIGTERM");
	const secondLog = await new Response(second.child.stdout).text();
	expect(secondLog).not.toContain("demo faxes");
	await second.child.exited;
});

test("NODE_ENV=production starts empty unless SEED_DEMO=1 asks for the demo faxes", async () => {
	const env = {
		NODE_ENV: "production",
		DATABASE_PATH: join(dir, "production.sqlite"),
		STORAGE_DIR: join(dir, "p"),
	};
	const server = await startServerProcess(env);
	expect(await (await fetch(`${server.url}/api/faxes?limit=100`)).json()).toEqual([]);
	server.child.kill("SIGTERM");
	expect(await server.child.exited).toBe(0);

	const asked = await startServerProcess({
		...env,
		DATABASE_PATH: join(dir, "asked.sqlite"),
		SEED_DEMO: "1",
	});
	expect(((await (await fetch(`${asked.url}/api/faxes?limit=100`)).json()) as unknown[]).length).toBe(14);
	asked.child.kill("SIGTERM");
	expect(await asked.child.exited).toBe(0);
});
