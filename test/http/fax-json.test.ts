import { expect, test } from "bun:test";
import type { FaxRow } from "../../lib/fax/index.ts";
import { createFaxJson, createFaxPresenter } from "../../lib/fax/index.ts";

const present = createFaxPresenter({
	cdnBaseUrl: "https://cdn.example",
	siteBaseUrl: "https://site.example",
});
const row = (slug: string): FaxRow => ({
	slug,
	source: "phone",
	sender: "+1 555 123 4567",
	received_at: 1_763_800_000,
	page_count: 2,
	file_size: 1234,
});

test("the remembered text is the presented fax, serialised", () => {
	const faxJson = createFaxJson(present);
	expect(faxJson(row("fax_a"))).toBe(JSON.stringify(present(row("fax_a"))));
	expect(JSON.parse(faxJson(row("fax_a")))).toEqual({
		slug: "fax_a",
		source: "phone",
		from: "+155*****567",
		received_at: "2025-11-22T08:26:40Z",
		page_count: 2,
		file_size: 1234,
		pdf_url: "https://cdn.example/faxes/fax_a.pdf",
		thumbnail_url: "https://cdn.example/faxes/fax_a-thumb.jpg",
		view_url: "https://site.example/faxtest/fax_a",
	});
});

test("each fax is presented once while remembered; the oldest is forgotten past the bound", () => {
	const presented: string[] = [];
	const faxJson = createFaxJson((fax) => {
		presented.push(fax.slug);
		return present(fax);
	}, 2);
	for (const slug of ["fax_a", "fax_b", "fax_a", "fax_b", "fax_c", "fax_b", "fax_a"]) faxJson(row(slug));
	expect(presented).toEqual(["fax_a", "fax_b", "fax_c", "fax_a"]);
});
