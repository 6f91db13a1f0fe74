import { expect, test } from "bun:test";
import { htmlPage } from "../../lib/pages/html.ts";
import { PageMemory } from "../../lib/pages/index.ts";

test("a page is made once per key, and the least recently used go first past the bound", () => {
	let made = 0;
	const make = (text: string) => () => {
		made++;
		return htmlPage("Page", `<p>${text}</p>`, {});
	};
	const size = htmlPage("Page", "<p>a</p>", {}).html.length + "a".length;
	const pages = new PageMemory(size * 2);
	const first = pages.page("a", make("a"));
	expect(pages.page("a", make("a"))).toBe(first);
	expect(made).toBe(1);
	pages.page("b", make("b"));
	// "a" asked for again: "b" is now the least recently used.
	expect(pages.kept("a")).toBe(first);
	pages.page("c", make("c"));
	expect([pages.size, pages.kept("b"), pages.kept("a")]).toEqual([2, undefined, first]);
	expect(made).toBe(3);
	expect(first.answer.text).toContain("<p>a</p>");
	expect(first.policy).toBe(htmlPage("Page", "<p>a</p>", {}).policy);
});
