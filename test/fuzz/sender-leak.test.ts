import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import fc from "fast-check";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { createLogger } from "../../lib/log/index.ts";
import { fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { runFax, startTestServer, type TestServer } from "../../testkit/server.ts";
import { PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";
import { leaksIn, publicFormProblems, type SenderCase, sender } from "./senders.ts";

let server: TestServer;
let db: Database;
let store: FaxStore;
const logLines: string[] = [];
let cases = 0;

beforeAll(async () => {
	// The most verbose level, written raw: every line the server could print is searched.
	const logger = createLogger("trace", { write: (line: string) => logLines.push(line) });
	server = await startTestServer({ clock: fixedClock, logger });
	db = openDatabase(server.databasePath);
	store = new FaxStore(db);
});
afterAll(async () => {
	db.close();
	await server.stop();
});

/** The fields of a fax that have nothing to do with its sender, exactly as they must be. */
function senderFree(slug: string, source: "phone" | "email", receivedAt: number) {
	return {
		slug,
		source,
		received_at: new Date(receivedAt * 1000).toISOString().replace(".000", ""),
		page_count: null,
		file_size: null,
		pdf_url: null,
		thumbnail_url: null,
		view_url: `https://site.test.example/faxtest/${slug}`,
	};
}

/** Problems with one fax as the API or the CLI shows it: its public form, leaks, anything else sender-made. */
function faxProblems(
	fax: Record<string, unknown>,
	expected: Record<string, unknown>,
	raw: SenderCase,
): string[] {
	const { from, ...rest } = fax;
	return [
		...publicFormProblems(from, raw),
		...leaksIn(String(from), raw),
		...(Bun.deepEquals(rest, expected) ? [] : [`fields ${JSON.stringify(rest)}`]),
	];
}

// Fields whose values no sender reaches: a time or an id holds digit runs of
// its own (the year), and the others are the server's own words (a level, a
// method, a route pattern, never the path). Field names are the server's words
// too: a generated address holding "rout" or "evel" is in none of them.
const SENDER_FREE_FIELDS = ["time", "req_id", "duration_ms", "level", "method", "route", "status", "client"];
const ACCESS_LINE = "request";

function logProblems(since: number, raw: SenderCase): string[] {
	return logLines.slice(since).flatMap((line) => {
		const fields = JSON.parse(line) as Record<string, unknown>;
		for (const name of SENDER_FREE_FIELDS) delete fields[name];
		if (fields.msg === ACCESS_LINE) delete fields.msg;
		return leaksIn(JSON.stringify(Object.values(fields)), raw).map((leak) => `log shows ${leak}: ${line}`);
	});
}

describe("the raw sender never leaves the server", () => {
	test(
		"answers and log lines show at most what the masking rules allow, and from= finds every spelling",
		async () => {
			await fc.assert(
				fc.asyncProperty(sender, async (raw) => {
					const slug = `fax_leak${cases++}`;
					const receivedAt = NOW_SECONDS - 60;
					const logged = logLines.length;
					await store.insert({
						slug,
						source: "phone",
						sender: raw.raw,
						received_at: receivedAt,
						page_count: null,
						file_size: null,
					});
					const expected = senderFree(slug, "phone", receivedAt);

					const single = await server.request(`/api/faxes/${slug}`);
					const problems = faxProblems((await single.json()) as Record<string, unknown>, expected, raw);
					for (const spelling of [raw.plain, raw.raw]) {
						const list = await server.request(`/api/faxes?limit=100&from=${encodeURIComponent(spelling)}`);
						const faxes = (await list.json()) as Record<string, unknown>[];
						const mine = faxes.find((fax) => fax.slug === slug);
						if (mine === undefined) problems.push(`from=${spelling} does not find it`);
						else problems.push(...faxProblems(mine, expected, raw));
					}
					problems.push(...logProblems(logged, raw));
					expect({ raw: raw.raw, problems }).toEqual({ raw: raw.raw, problems: [] });
				}),
				runs("senderLeak"),
			);
		},
		PROPERTY_TIMEOUT_MS,
	);

	test(
		"fax ingest --json and its messages show at most what the masking rules allow",
		async () => {
			const input = join(server.dir, "not-a-fax.txt");
			await Bun.write(input, "Dear fax machine,\nhello.\n");
			await fc.assert(
				fc.asyncProperty(sender, async (raw) => {
					const result = await runFax(
						["ingest", input, "--source", "email", `--sender=${raw.raw}`, "--json"],
						server.env,
					);
					const fax = JSON.parse(result.stdout) as Record<string, unknown> & {
						slug: string;
						received_at: string;
					};
					const receivedAt = Date.parse(fax.received_at) / 1000;
					const problems = [
						...faxProblems(fax, senderFree(fax.slug, "email", receivedAt), raw),
						...leaksIn(result.stderr.replace(input, ""), raw),
					];
					expect({ raw: raw.raw, code: result.code, problems }).toEqual({
						raw: raw.raw,
						code: 3,
						problems: [],
					});
				}),
				runs("senderIngest"),
			);
		},
		PROPERTY_TIMEOUT_MS,
	);
});
