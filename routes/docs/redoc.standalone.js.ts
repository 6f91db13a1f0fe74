import { readFileSync } from "node:fs";
import { definePlainRoute } from "../../lib/http/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// Served from the installed package at run time: the docs page needs no CDN.
const BUNDLE = Bun.resolveSync("redoc/bundles/redoc.standalone.js", import.meta.dir);
// Sent from the file as before when asked for as it is; its text is kept for
// the compressed forms (about 1.1 MB, compressed on first asking).
const RENDERER = new Representation(readFileSync(BUNDLE, "utf8"), Bun.file(BUNDLE));

/** GET /docs/redoc.standalone.js: the renderer of the docs page. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: RENDERER,
	type: "text/javascript; charset=utf-8",
}));
