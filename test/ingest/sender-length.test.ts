import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

// 255 characters as a reader counts them: a thumbs-up with a skin tone is one
// character of four UTF-16 units, "e" with a combining accent one of two.
const THUMBS_UP = "\u{1f44d}\u{1f3fd}";
const E_ACUTE = "e\u0301";
const LONGEST = `${"A".repeat(253)}${E_ACUTE}${THUMBS_UP}`;
// Cut at 255 UTF-16 units, this one would end in half a surrogate pair.
const SPLIT_AT_UNIT_255 = `${"A".repeat(254)}${THUMBS_UP}`;

let server: TestServer;
let input: string;
beforeAll(async () => {
	server = await startTestServer();
	input = join(server.dir, "not-a-fax.txt");
	await Bun.write(input, "not a fax\n");
});
afterAll(() => server.stop());

async function shownSender(slug: string): Promise<string> {
	const fax = (await (await server.request(`/api/faxes/${slug}`)).json()) as { from: string };
	return fax.from;
}

describe("a sender longer than 255 characters", () => {
	test("fax ingest cuts it after the 255th character, never inside one", async () => {
		for (const longest of [SPLIT_AT_UNIT_255, LONGEST]) {
			for (const tail of ["B", THUMBS_UP, `${THUMBS_UP}${THUMBS_UP}`, E_ACUTE]) {
				const result = await runFax(
					["ingest", input, "--source", "phone", `--sender=${longest}${tail}`, "--json"],
					server.env,
				);
				expect(result.code).toBe(3);
				expect(result.stdout).not.toContain("\\ud");
				const fax = JSON.parse(result.stdout) as { slug: string; from: string };
				// Shown in NFKC, as every sender is: "e" and its accent become "é".
				expect(fax.from).toBe(longest.normalize("NFKC"));
				expect(await shownSender(fax.slug)).toBe(longest.normalize("NFKC"));
			}
		}
	});

	test("fax import takes 255 characters, however many UTF-16 units they are, and refuses 256", async () => {
		const file = join(server.dir, "senders.json");
		const record = (slug: string, sender: string) => ({
			slug,
			source: "phone",
			sender,
			received_at: new Date().toISOString(),
			page_count: null,
			file_size: null,
		});
		await Bun.write(file, JSON.stringify([record("fax_longest", LONGEST)]));
		expect((await runFax(["import", file], server.env)).code).toBe(0);
		expect(await shownSender("fax_longest")).toBe(LONGEST.normalize("NFKC"));

		await Bun.write(file, JSON.stringify([record("fax_toolong", `${LONGEST}B`)]));
		const refused = await runFax(["import", file], server.env);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain(
			"record 0: sender: must be the raw sender as text of at most 255 characters, or null for no sender ID",
		);
	});
});
