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
		expect(result.stdout).toMatch(
			new RegExp(
				`^imported 2 faxes and 1 removed fax from ${file} in \\d+(\\.\\d)? s \\(longest write transaction \\d+ ms\\)\n$`,
			),
		);
		const slugs = await listed();
		expect(slugs).toContain("fax_imported1");
		expect(slugs.filter((slug) => /^fax_[A-Za-z0-9]{12}$/.test(slug)).length).toBe(1);
		expect((await server.request("/api/faxes/fax_imported3")).status).toBe(410);
	});

	test("a file with invalid records is reported per record, in the words of docs/operations/instance.md, and nothing is written", async () => {
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
			`import: ${file}: record 5: colour: is not a field of a fax record (slug, source, sender, received_at, page_count, file_size, removed)`,
			`import: ${file}: record 6: must be a JSON object with the fields source, sender, received_at, page_count, file_size`,
			`import: ${file}: invalid records: 6 of 7; nothing was imported`,
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
			stderr: `import: ${missing}: cannot be read: no such file or directory (ENOENT)\n`,
		});
		expect(await runFax(["import", server.dir], server.env)).toEqual({
			code: 1,
			stdout: "",
			stderr: `import: ${server.dir}: cannot be read: illegal operation on a directory (EISDIR)\n`,
		});
	});

	test("every problem of a record is reported, each field in the words of docs/operations/instance.md", async () => {
		const file = await writeJson("many-problems.json", [
			{
				slug: "fax-not-a-slug",
				source: "fax",
				sender: 42,
				received_at: "yesterday",
				page_count: 0,
				file_size: -1,
				removed: "yes",
				colour: "red",
			},
			{},
			{ ...faxRecord(), sender: "x".repeat(256), page_count: 1.5 },
			faxRecord({ received_at: new Date(Date.now() - 5000).toISOString().replace("Z", "") }),
		]);
		const result = await runFax(["import", file], server.env);
		expect(result.code).toBe(1);
		expect(result.stderr.split("\n")).toEqual([
			`import: ${file}: record 0: slug: must be fax_ followed by letters and digits only, like fax_a1B2c3`,
			`import: ${file}: record 0: source: must be "phone" or "email"`,
			`import: ${file}: record 0: sender: must be the raw sender as text of at most 255 characters, or null for no sender ID`,
			`import: ${file}: record 0: page_count: must be a whole number of 1 or more, or null for a fax that could not be processed`,
			`import: ${file}: record 0: file_size: must be the PDF's size in bytes, a whole number of 0 or more, or null for a fax that could not be processed`,
			`import: ${file}: record 0: removed: must be true (a removed fax) or false`,
			`import: ${file}: record 0: colour: is not a field of a fax record (slug, source, sender, received_at, page_count, file_size, removed)`,
			`import: ${file}: record 0: received_at: must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z`,
			`import: ${file}: record 1: source: is missing`,
			`import: ${file}: record 1: sender: is missing`,
			`import: ${file}: record 1: received_at: is missing`,
			`import: ${file}: record 1: page_count: is missing`,
			`import: ${file}: record 1: file_size: is missing`,
			`import: ${file}: record 2: sender: must be the raw sender as text of at most 255 characters, or null for no sender ID`,
			`import: ${file}: record 2: page_count: must be a whole number of 1 or more, or null for a fax that could not be processed`,
			`import: ${file}: record 3: received_at: must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z`,
			`import: ${file}: invalid records: 4 of 4; nothing was imported`,
			"",
		]);
	});

	test("a time more than 5 minutes ahead of the clock is refused; one within 5 minutes is taken", async () => {
		const ahead = (seconds: number) => `${new Date(Date.now() + seconds * 1000).toISOString().slice(0, 19)}Z`;
		const future = ahead(600);
		const refused = await writeJson("future.json", [faxRecord({ received_at: future })]);
		const result = await runFax(["import", refused], server.env);
		expect(result.code).toBe(1);
		expect(result.stderr).toMatch(
			new RegExp(
				`^import: ${refused}: record 0: received_at: ${future} lies in the future \\(more than 5 minutes after \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\n`,
			),
		);
		const taken = await writeJson("soon.json", [faxRecord({ slug: "fax_soon", received_at: ahead(120) })]);
		expect((await runFax(["import", taken], server.env)).code).toBe(0);
		expect((await server.request("/api/faxes/fax_soon")).status).toBe(200);
	});

	test("a slug used twice in the file is reported at its second use", async () => {
		const file = await writeJson("twice.json", [
			faxRecord({ slug: "fax_twice" }),
			faxRecord(),
			faxRecord({ slug: "fax_twice" }),
		]);
		const result = await runFax(["import", file], server.env);
		expect(result.stderr).toBe(
			`import: ${file}: record 2: slug: fax_twice is also the slug of record 0\nimport: ${file}: invalid records: 1 of 3; nothing was imported\n`,
		);
	});

	test("past 50 problems the rest are counted, not listed", async () => {
		const file = await writeJson(
			"bound.json",
			Array.from({ length: 30 }, () => ({ ...faxRecord(), source: "fax", page_count: 0 })),
		);
		const lines = (await runFax(["import", file], server.env)).stderr.trimEnd().split("\n");
		expect(lines).toHaveLength(52);
		expect(lines[49]).toBe(
			`import: ${file}: record 24: page_count: must be a whole number of 1 or more, or null for a fax that could not be processed`,
		);
		expect(lines.slice(50)).toEqual([
			`import: ${file}: and 10 more problems in 5 more records`,
			`import: ${file}: invalid records: 30 of 30; nothing was imported`,
		]);
	});

	test("bad arguments exit 2 with the reason and a pointer to --help", async () => {
		const result = await runFax(["import"], server.env);
		expect(result.code).toBe(2);
		expect(result.stderr).toBe(
			'fax import: expected 1 argument, got 0\nRun "fax import --help" for its arguments.\n',
		);
		expect((await runFax(["import", "a.json", "--force"], server.env)).code).toBe(2);
	});
});

describe("fax", () => {
	test("--help lists the commands; an unknown command exits 2", async () => {
		const help = await runFax(["--help"], server.env);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain(
			"  import           insert faxes from a JSON array of records, all or nothing\n",
		);
		const unknown = await runFax(["frobnicate"], server.env);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toBe('fax: unknown command "frobnicate"\nRun "fax --help" for the commands.\n');
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
