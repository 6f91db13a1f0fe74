import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { answerProblems, exchange, Tally } from "./answers.ts";
import { insertCatalogue } from "./catalogue.ts";
import { request } from "./requests.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

let server: TestServer;
const tally = new Tally("requests");

beforeAll(async () => {
	server = await startTestServer({ clock: fixedClock });
	insertCatalogue(server.databasePath);
});
afterAll(async () => {
	tally.report(CASES.requests[LONG_RUN ? "long" : "fast"]);
	await server.stop();
});

test(
	"every path, method and header set gets the answer the contract gives, with the headers of every answer",
	async () => {
		await fc.assert(
			fc.asyncProperty(request, async ({ method, target, headers, body, expected }) => {
				const answer = tally.see(await exchange(server.port, method, target, headers, body));
				const problems = answerProblems(answer, expected, method);
				expect({ method, target, headers, problems }).toEqual({ method, target, headers, problems: [] });
			}),
			runs("requests"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
