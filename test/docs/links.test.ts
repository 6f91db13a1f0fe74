import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const DOCUMENTS = [
	"README.md",
	...["docs", "docs/operations"].flatMap((folder) =>
		readdirSync(join(ROOT, folder))
			.filter((name) => name.endsWith(".md"))
			.map((name) => `${folder}/${name}`),
	),
];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const [, heading] of markdown.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
		const base = (heading ?? "")
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
			.replace(/\s/g, "-");
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

test("GitHub's anchors: code and punctuation dropped, repeats numbered", () => {
	expect([
		...anchorsOf("# Two instances behind nginx: `deploy/`\n## Logs\n## Logs\n```sh\n# not a heading\n```\n"),
	]).toEqual(["two-instances-behind-nginx-deploy", "logs", "logs-1"]);
});

test.each(DOCUMENTS)("every relative link and anchor of %s resolves", (document) => {
	const path = join(ROOT, document);
	const markdown = readFileSync(path, "utf8");
	const broken: string[] = [];
	for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
		if (target === undefined || /^[a-z]+:/i.test(target)) continue;
		const [file = "", anchor] = target.split("#");
		const resolved = file === "" ? path : join(dirname(path), decodeURIComponent(file));
		if (!existsSync(resolved)) {
			broken.push(`${target}: no ${relative(ROOT, resolved)}`);
			continue;
		}
		if (anchor === undefined) continue;
		if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
			broken.push(`${target}: an anchor into a file that is not Markdown`);
		} else if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
			broken.push(`${target}: no heading with that anchor`);
		}
	}
	expect(broken).toEqual([]);
});
