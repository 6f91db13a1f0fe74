import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { faxRecord } from "../../testkit/fixtures.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({ faxes: [faxRecord({ slug: "fax_existing" })] });
});
afterAll(() => server.stop());

async function writeJson(name: string, value: unknown): Promise<string> {
	const path = join(server.dir, name);
	await Bun.write(path, typeof value === "string" ? value : JSON.stringify(value));
	return path;
}

async function listed(): Promise<string[]> {
	const body = (await (await server.request("/api/faxes?limit=100")).json()) as { slug: string }[];
	return body.map((fax) => fax.slug);
}

const now = () => new Date(Date.now() - 5000).toISOString();

describe("fax import", () => {
	test("imports every record, removed ones as 410, and generates slugs when absent", async () => {
		const file = await writeJson("good.json", [
			{
				slug: "fax_imported1",
				source: "email",
				sender: "a@b.example",
				received_at: now(),
				page_count: 2,
				file_size: 900,
			},
			{ source: "phone", sender: null, received_at: now(), page_count: null, file_size: null },
			{
				slug: "fax_imported3",
				source: "phone",
				sender: "ACME 1",
				received_at: now(),
				page_count: 1,
				file_size: 1,
				removed: true,
			},
		]);
		const result = await runFax(["import", file], server.env);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout).toBe(`imported 2 faxes and 1 removed faxes from ${file}\n`);
		const slugs = await listed();
		expect(slugs).toContain("fax_imported1");
		expect(slugs.filter((slug) => /^fax_[A-Za-z0-9]{12}$/.test(slug)).length).toBe(1);
		expect((await server.request("/api/faxes/fax_imported3")).status).toBe(410);
	});

	test("a file with invalid records is reported per record and nothing is written", async () => {
		const before = await listed();
		const file = await writeJson("bad.json", [
			{ slug: "fax_fine1", source: "phone", sender: null, received_at: now(), page_count: 1, file_size: 1 },
			{ source: "fax", sender: null, received_at: now(), page_count: 1, file_size: 1 },
			{ source: "phone", sender: null, received_at: "2026-11-21T10:00:00", page_count: 1, file_size: 1 },
			{ source: "phone", sender: null, received_at: now(), page_count: null, file_size: 5 },
			{
				slug: "fax_existing",
				source: "phone",
				sender: null,
				received_at: now(),
				page_count: 1,
				file_size: 1,
			},
			{ source: "phone", sender: null, received_at: now(), page_count: 1, file_size: 1, colour: "red" },
			"not an object",
		]);
		const result = await runFax(["import", file], server.env);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe("");
		expect(result.stderr.split("\n")).toEqual([
			`import: ${file}: record 1: source: must be "phone" or "email"`,
			`import: ${file}: record 2: received_at: must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z`,
			`import: ${file}: record 3: page_count and file_size must both be null (not processable) or both be set`,
			`import: ${file}: record 4: slug: fax_existing is already used; slugs are never reused`,
			`import: ${file}: record 5: colour: unexpected property`,
			`import: ${file}: record 6: record: expected object`,
			`import: ${file}: nothing was imported`,
			"",
		]);
		expect(await listed()).toEqual(before);
	});

	test("a file that is not a JSON array, not JSON, or missing fails with exit 1", async () => {
		const object = await writeJson("object.json", { slug: "fax_x" });
		expect(await runFax(["import", object], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `import: ${object}: the file must hold a JSON array of fax records\nimport: ${object}: nothing was imported\n`,
		});
		const broken = await writeJson("broken.json", "[{");
		const result = await runFax(["import", broken], server.env);
		expect(result.code).toBe(1);
		expect(result.stderr).toStartWith(`import: ${broken}: not valid JSON`);
		const missing = join(server.dir, "missing.json");
		expect(await runFax(["import", missing], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `import: ${missing}: cannot be read\n`,
		});
	});

	test("bad arguments exit 2 with the usage", async () => {
		const result = await runFax(["import"], server.env);
		expect(result.code).toBe(2);
		expect(result.stderr).toStartWith(
			"fax import: expected 1 argument, got 0\n\nUsage: fax import FILE.json",
		);
		expect((await runFax(["import", "a.json", "--force"], server.env)).code).toBe(2);
	});
});

describe("fax", () => {
	test("--help lists the commands; an unknown command exits 2", async () => {
		const help = await runFax(["--help"], server.env);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("  import  insert faxes from a JSON array of records, all or nothing\n");
		const unknown = await runFax(["frobnicate"], server.env);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toStartWith('fax: unknown command "frobnicate"');
	});

	test("a bad configuration exits 2 naming the variable, without a stack trace", async () => {
		const result = await runFax(["purge"], {
			...server.env,
			DATABASE_PATH: server.databasePath,
			PORT: "http",
		});
		expect(result).toEqual({
			code: 2,
			stdout: "",
			stderr: 'configuration error: PORT must be an integer from 0 to 65535, got "http"\n',
		});
	});
});
