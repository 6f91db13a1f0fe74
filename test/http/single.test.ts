import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ago, faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

const DAY = 86_400;
let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({
		clock: fixedClock,
		faxes: [
			faxRecord({
				slug: "fax_live1",
				sender: "John.Doe@Example.co.uk",
				source: "email",
				received_at: ago(90),
			}),
			faxRecord({ slug: "fax_gone1", removed: true }),
			faxRecord({ slug: "fax_edge30", received_at: ago(30 * DAY) }),
			faxRecord({ slug: "fax_past30", received_at: ago(30 * DAY + 1) }),
			...Array.from({ length: 25 }, (_, i) =>
				faxRecord({ slug: `fax_many${i}`, received_at: ago(3600 + i) }),
			),
		],
	});
});

afterAll(() => server.stop());

describe("GET /api/faxes/{slug}", () => {
	test("answers the fax as a bare object identical to its list element", async () => {
		const response = await server.request("/api/faxes/fax_live1");
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
		const fax = await response.json();
		expect(fax).toEqual({
			slug: "fax_live1",
			source: "email",
			from: "j***@e***.uk",
			received_at: ago(90),
			page_count: 1,
			file_size: 1000,
			pdf_url: "https://cdn.test.example/faxes/fax_live1.pdf",
			thumbnail_url: "https://cdn.test.example/faxes/fax_live1-thumb.jpg",
			view_url: "https://site.test.example/faxtest/fax_live1",
		});
		const list = (await (await server.request("/api/faxes?limit=1")).json()) as unknown[];
		expect(list[0]).toEqual(fax);
	});

	test("404 with an empty message for a slug that does not exist", async () => {
		for (const slug of ["fax_nothere", "fax_", "nofax", "fax_abc-def", "fax_%C3%A9t%C3%A9", "FAX_live1"]) {
			const response = await server.request(`/api/faxes/${slug}`);
			expect(response.status).toBe(404);
			expect(await response.text()).toBe('{"message":""}');
			expect(response.headers.get("x-ratelimit-limit")).toBe("1000000");
		}
	});

	test("410 with an empty message once removed", async () => {
		const response = await server.request("/api/faxes/fax_gone1");
		expect(response.status).toBe(410);
		expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(await response.text()).toBe('{"message":""}');
	});

	test("410 for a fax older than 30 days, even before the purge; 200 at exactly 30 days", async () => {
		expect((await server.request("/api/faxes/fax_past30")).status).toBe(410);
		expect((await server.request("/api/faxes/fax_edge30")).status).toBe(200);
	});
});

describe("GET /api/faxes with more faxes than the default limit", () => {
	test("the list gives 20 faxes by default and at most limit", async () => {
		const list = (await (await server.request("/api/faxes")).json()) as { slug: string }[];
		expect(list.length).toBe(20);
		expect(list[0]?.slug).toBe("fax_live1");
		expect(list[19]?.slug).toBe("fax_many18");
		const all = (await (await server.request("/api/faxes?limit=100")).json()) as unknown[];
		expect(all.length).toBe(26);
	});
});
