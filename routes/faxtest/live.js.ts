import { readFileSync } from "node:fs";
import { definePlainRoute } from "../../lib/http/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// A file of our own origin, so the live page's policy allows it with 'self'
// and no inline script; with its ETag and compressed forms.
const SCRIPT = new Representation(readFileSync(new URL("../../lib/pages/live.js", import.meta.url), "utf8"));

/** GET /faxtest/live.js: the live page's script. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: SCRIPT,
	type: "text/javascript; charset=utf-8",
}));
