import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { fixedClock, NOW_SECONDS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { answerProblems, BUN_OWN_STATUSES, exchange, Tally } from "./answers.ts";
import { insertCatalogue } from "./catalogue.ts";
import { expectedListAnswer } from "./list-oracle.ts";
import { APP_QUERY_LIMIT, queryString } from "./queries.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

let server: TestServer;
const tally = new Tally("list queries");

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
	await insertCatalogue(server.databasePath);
});
afterAll(async () => {
	tally.report(
		CASES.listQuery[LONG_RUN ? "long" : "fast"] + CASES.oversizedQuery[LONG_RUN ? "long" : "fast"],
	);
	await server.stop();
});

test(
	"every query string gets the list or the 422 the contract gives, with the headers of every answer",
	async () => {
		await fc.assert(
			fc.asyncProperty(queryString, fc.constantFrom("GET", "GET", "GET", "HEAD"), async (search, method) => {
				fc.pre(search.length <= APP_QUERY_LIMIT);
				const target = search === "" ? "/api/faxes" : `/api/faxes?${search}`;
				const answer = tally.see(await exchange(server.port, method, target));
				const problems = answerProblems(answer, expectedListAnswer(search, NOW_SECONDS), method);
				expect({ target: target.slice(0, 3000), problems }).toEqual({
					target: target.slice(0, 3000),
					problems: [],
				});
			}),
			runs("listQuery"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

test(
	"a query past Bun's 16 KiB head limit, up to 1 MB, is refused by Bun or answered by the contract, and the server keeps answering",
	async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 16 * 1024, max: 1024 * 1024 }),
				fc.constantFrom("from", "since", "limit", "x", "from[]"),
				fc.constantFrom("a", "%C0%AF", "%E2%82%AC", "1"),
				async (length, name, unit) => {
					const value = unit.repeat(Math.ceil(length / unit.length));
					const search = `${name}=${value}`;
					const answer = tally.see(await exchange(server.port, "GET", `/api/faxes?${search}`));
					const problems = BUN_OWN_STATUSES.has(answer.status)
						? []
						: answerProblems(answer, expectedListAnswer(search, NOW_SECONDS), "GET");
					const after = tally.see(await exchange(server.port, "GET", "/api/faxes?limit=1"));
					expect({ length, name, unit, status: answer.status, problems, after: after.status }).toEqual({
						length,
						name,
						unit,
						status: answer.status,
						problems: [],
						after: 200,
					});
				},
			),
			runs("oversizedQuery"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
