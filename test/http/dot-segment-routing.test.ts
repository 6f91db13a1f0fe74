import { expect, test } from "bun:test";
import { rawExchange } from "../../testkit/raw-http.ts";

// Bun 1.4.5 matches its routes on the path as sent while request.url resolves
// dot segments, so GET /api/faxes/.. reaches the fax route with the slug ".."
// (docs/decisions.md, "Known limitations"); test/fuzz/requests.ts models it.
// When this fails, Bun routes by the resolved path (oven-sh/bun#42724 or a
// successor landed): the model's "raw-route" paths then take their resolved
// answers, and the limitation leaves the docs.
test("Bun 1.4.5 hands a final `..` to a route parameter while request.url resolves it", async () => {
	using server = Bun.serve({
		port: 0,
		hostname: "127.0.0.1",
		routes: {
			"/r/:slug": (request) => new Response(`route ${request.params.slug} ${new URL(request.url).pathname}`),
		},
		fetch: (request) => new Response(`fallback ${new URL(request.url).pathname}`),
	});
	const answer = await rawExchange(
		server.port ?? 0,
		Buffer.from("GET /r/.. HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
	);
	expect(answer.body).toBe("route .. /");
});
