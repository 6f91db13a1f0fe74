import { expect, test } from "bun:test";
import { join } from "node:path";
import { Glob } from "bun";
import { type Listener, routePathOf } from "../../lib/http/index.ts";
import { ROUTE_FILES } from "../../routes/manifest.ts";

test("the manifest lists exactly the route files under routes/", async () => {
	const files = await Array.fromAsync(new Glob("**/*.ts").scan(join(import.meta.dir, "../../routes")));
	expect(Object.keys(ROUTE_FILES).sort()).toEqual(files.filter((file) => file !== "manifest.ts").sort());
});

function pathsOf(listener: Listener): string[] {
	return Object.entries(ROUTE_FILES)
		.filter(([, route]) => route.listener === listener)
		.map(([file]) => routePathOf(file))
		.sort();
}

test("file paths map to URL paths, admin/ being the admin listener's root", () => {
	expect(pathsOf("public")).toEqual([
		"/api/faxes",
		"/api/faxes/:slug",
		"/cdn/faxes/:file",
		"/docs",
		"/docs/API.md",
		"/docs/interactive",
		"/docs/redoc-sidebar-attribution-logo.svg",
		"/docs/redoc.standalone.js",
		"/docs/redoc.standalone.js.map",
		"/favicon.svg",
		"/faxtest",
		"/faxtest/:slug",
		"/faxtest/calls",
		"/faxtest/live.js",
		"/faxtest/outcomes",
		"/openapi.json",
		"/robots.txt",
	]);
	expect(pathsOf("admin")).toEqual(["/healthz", "/metrics", "/readyz"]);
	expect(routePathOf("api/faxes/[slug]/pages/index.ts")).toBe("/api/faxes/:slug/pages");
});

test("a route declares the admin listener exactly when its file is under routes/admin/", () => {
	for (const [file, route] of Object.entries(ROUTE_FILES)) {
		expect([file, route.listener]).toEqual([file, file.startsWith("admin/") ? "admin" : "public"]);
	}
});
