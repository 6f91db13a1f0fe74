import { readFileSync } from "node:fs";
import { definePlainRoute } from "../lib/http/index.ts";
import { Representation } from "../lib/representation/index.ts";

// Every page links to it (lib/pages/html.ts), so no browser asks for a
// /favicon.ico that would be a 404 in its console.
const ICON = new Representation(readFileSync(new URL("../lib/pages/favicon.svg", import.meta.url), "utf8"));

/** GET /favicon.svg: the site's icon, a page with lines. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: ICON,
	type: "image/svg+xml",
}));
