import { definePlainRoute } from "../../lib/http/index.ts";
import { patchedRedocBundle } from "../../lib/pages/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// Served from the installed package at run time: the docs page needs no CDN.
// Its text is kept for the compressed forms (about 1.1 MB, compressed on first asking).
const RENDERER = new Representation(patchedRedocBundle());

/** GET /docs/redoc.standalone.js: the renderer of the interactive docs page. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: RENDERER,
	type: "text/javascript; charset=utf-8",
}));
