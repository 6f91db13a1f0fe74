import { expect, test } from "bun:test";
import { join } from "node:path";
import { Glob } from "bun";
import { routePathOf } from "../../lib/http/index.ts";
import { ROUTE_FILES } from "../../routes/manifest.ts";

test("the manifest lists exactly the route files under routes/", async () => {
	const files = await Array.fromAsync(new Glob("**/*.ts").scan(join(import.meta.dir, "../../routes")));
	expect(Object.keys(ROUTE_FILES).sort()).toEqual(files.filter((file) => file !== "manifest.ts").sort());
});

test("file paths map to URL paths", () => {
	expect(Object.keys(ROUTE_FILES).map(routePathOf).sort()).toEqual([
		"/api/faxes",
		"/api/faxes/:slug",
		"/cdn/faxes/:file",
		"/docs",
		"/docs/redoc.standalone.js",
		"/faxtest/:slug",
		"/openapi.json",
	]);
	expect(routePathOf("api/faxes/[slug]/pages/index.ts")).toBe("/api/faxes/:slug/pages");
});
