import { definePlainRoute } from "../../lib/http/index.ts";

// Served from the installed package at run time: the docs page needs no CDN.
const BUNDLE = Bun.resolveSync("redoc/bundles/redoc.standalone.js", import.meta.dir);

/** GET /docs/redoc.standalone.js: the renderer of the docs page. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: Bun.file(BUNDLE),
	type: "text/javascript; charset=utf-8",
}));
