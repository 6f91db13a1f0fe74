import { definePlainRoute } from "../../lib/http/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// Empty: the attribution keeps its words and link, without Redocly's logo,
// which is theirs and on their CDN (lib/pages/redoc-bundle.ts).
const EMPTY = new Representation('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>\n');

/** GET /docs/redoc-sidebar-attribution-logo.svg: what Redoc's sidebar shows beside "API docs by Redocly". */
export const route = definePlainRoute(() => ({
	status: 200,
	body: EMPTY,
	type: "image/svg+xml",
}));
