// docs/testers.md shows the advice table and HylaFAX's reasons exactly as the
// pages use them (testkit/testers-doc.ts writes them: `bun testkit/testers-doc.ts`).
import { expect, test } from "bun:test";
import { ADVICE, HYLAFAX_REASONS } from "../../lib/report/index.ts";
import { TESTERS_DOC, tablesIn, testersTables } from "../../testkit/testers-doc.ts";

test("docs/testers.md holds the advice table and every HylaFAX reason, as the pages read them", async () => {
	const page = await Bun.file(TESTERS_DOC).text();
	expect(tablesIn(page)).toBe(testersTables());
	for (const rule of ADVICE) expect(page).toContain(`| \`${rule.key}\` | ${rule.fits} |`);
	expect(
		page.match(/^\| `[^|]+` \| (your machine|our side, after waiting|the line|a fault on our side) \|/gm),
	).toHaveLength(HYLAFAX_REASONS.length);
});
