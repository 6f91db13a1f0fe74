/**
 * The tables of docs/testers.md, made from the tables the pages read: the
 * advice (lib/report/advice.ts) and HylaFAX's reasons
 * (lib/report/hylafax-reasons.ts). `npm test` holds the page against them
 * (test/report/testers-doc.test.ts); `bun testkit/testers-doc.ts` writes them
 * into it, between its markers.
 */
import { join } from "node:path";
import { ADVICE, HYLAFAX_REASONS } from "../lib/report/index.ts";

export const TESTERS_DOC = join(import.meta.dir, "../docs/testers.md");
const BEGIN = "<!-- tables: made by testkit/testers-doc.ts -->";
const END = "<!-- end of the tables -->";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

const WHO: Record<string, string> = {
	sender: "your machine",
	"receiver-timeout": "our side, after waiting",
	line: "the line",
	"receiver-system": "a fault on our side",
};

function adviceTable(): string {
	const rows = ADVICE.map((rule) => `| \`${rule.key}\` | ${cell(rule.fits)} |`);
	return ["| advice | when it is given |", "| - | - |", ...rows].join("\n");
}

function reasonTable(): string {
	const rows = HYLAFAX_REASONS.map(
		(reason) =>
			`| \`${cell(reason.raw)}\` | ${WHO[reason.endedBy]} | ${cell(reason.words)} | ${reason.advice.map((key) => `\`${key}\``).join(", ")} |`,
	);
	return ["| HylaFAX's reason | ended by | what the page says | advice |", "| - | - | - | - |", ...rows].join(
		"\n",
	);
}

/** The tables as the page holds them, markers included. */
export function testersTables(): string {
	return `${BEGIN}\n\n### The advice\n\n${adviceTable()}\n\n### Every reason HylaFAX 6.0.7 gives for a failed reception\n\n${reasonTable()}\n\n${END}`;
}

/** The page's text with its tables as they are now. */
export function tablesIn(page: string): string {
	const begin = page.indexOf(BEGIN);
	const end = page.indexOf(END);
	return begin < 0 || end < 0 ? "" : page.slice(begin, end + END.length);
}

if (import.meta.main) {
	const page = await Bun.file(TESTERS_DOC).text();
	await Bun.write(TESTERS_DOC, page.replace(tablesIn(page), testersTables()));
}
