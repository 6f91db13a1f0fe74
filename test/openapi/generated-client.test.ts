import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import openapiTS from "openapi-typescript";
import { DESCRIPTION_FILE } from "../../testkit/api-description.ts";

// A client as its users generate it: openapi-typescript's types from the
// committed openapi.json, used through openapi-fetch and compiled by tsc. The
// directory sits under node_modules so the use resolves openapi-fetch.
const CACHE = join(import.meta.dir, "..", "..", "node_modules", ".cache");
mkdirSync(CACHE, { recursive: true });
const dir = mkdtempSync(join(CACHE, "testfax-client-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const USE = `import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Fax = components["schemas"]["Fax"];
const client = createClient<paths>({ baseUrl: "http://localhost:3000" });

export async function use(): Promise<Fax | undefined> {
	const list = await client.GET("/api/faxes", { params: { query: { limit: 5, from: "Unknown" } } });
	const newest: Fax | undefined = list.data?.[0];
	const head = await client.HEAD("/api/faxes", { params: { query: { limit: 100 } } });
	await client.HEAD("/api/faxes/{slug}", { params: { path: { slug: "fax_Ab3dE5gH7jK9" } } });
	const one = await client.GET("/api/faxes/{slug}", { params: { path: { slug: "fax_Ab3dE5gH7jK9" } } });
	const fax: Fax | undefined = one.data;
	// @ts-expect-error limit is a number, not its digits
	await client.GET("/api/faxes", { params: { query: { limit: "5" } } });
	return head.response.status === 200 ? (fax ?? newest) : undefined;
}
`;

const TSCONFIG = {
	compilerOptions: {
		strict: true,
		noEmit: true,
		target: "ES2022",
		module: "ESNext",
		moduleResolution: "bundler",
		skipLibCheck: true,
		lib: ["ES2022", "DOM"],
	},
	files: ["use.ts"],
};

test("a client generated from openapi.json compiles: limit a number, HEAD on both endpoints, the single fax a Fax", async () => {
	const types = await openapiTS(new URL(`file://${DESCRIPTION_FILE}`));
	// Structurally an inline copy would pass too: the 200 must name the component.
	const getFax = /getFax: \{[\s\S]*?200: \{[\s\S]*?content: \{\s*"application\/json": ([^;]+);/.exec(types);
	expect(getFax?.[1]).toBe('components["schemas"]["Fax"]');
	await Bun.write(join(dir, "api.d.ts"), types);
	await Bun.write(join(dir, "use.ts"), USE);
	await Bun.write(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
	const tsc = Bun.spawn([join(import.meta.dir, "..", "..", "node_modules", ".bin", "tsc"), "-p", dir], {
		stdout: "pipe",
		stderr: "pipe",
	});
	const output = (await new Response(tsc.stdout).text()) + (await new Response(tsc.stderr).text());
	expect({ exitCode: await tsc.exited, output }).toEqual({ exitCode: 0, output: "" });
});
