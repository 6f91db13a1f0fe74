// Each real call of fixtures/hylafax/ as a tester reads it: the whole fax page
// (verdict, advice, facts rows, timeline) and its row on the live list, held
// against the call's page.txt, which was read against its session log
// (testkit/fixture-pages.ts writes them: `bun testkit/fixture-pages.ts`).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { CALLS_DIR, fixtureCalls, fixturePage } from "../../testkit/fixture-pages.ts";

test("there is a page for every real call", () => {
	expect(fixtureCalls().length).toBeGreaterThanOrEqual(12);
});

test.each(fixtureCalls())("%s: the page and the list row say what its session log says", async (call) => {
	expect(fixturePage(call)).toBe(await Bun.file(join(CALLS_DIR, call, "page.txt")).text());
});
