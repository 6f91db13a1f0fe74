import { readFileSync } from "node:fs";
import { join } from "node:path";
import { definePlainRoute } from "../../lib/http/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// Read once at start: a server without its guide fails there, not on a request.
const GUIDE = new Representation(readFileSync(join(import.meta.dir, "../../docs/API.md"), "utf8"));

/**
 * GET /docs/API.md: the guide for API users, the repository's docs/API.md, so
 * the docs page can link to it. Plain text rather than text/markdown, which
 * browsers download instead of showing.
 */
export const route = definePlainRoute(() => ({
	status: 200,
	body: GUIDE,
	type: "text/plain; charset=utf-8",
}));
