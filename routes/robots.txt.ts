import { definePlainRoute } from "../lib/http/index.ts";
import { Representation } from "../lib/representation/index.ts";

// The live list and the API's documentation are for search engines; a single
// test fax's page is not (it is gone after 30 days, and a tester finds it by
// its link), nor the API and its files (docs/decisions.md).
const ROBOTS = new Representation(`User-agent: *
Allow: /faxtest$
Allow: /docs
Disallow: /faxtest/
Disallow: /api/
Disallow: /cdn/
`);

/** GET /robots.txt: what crawlers may visit. */
export const route = definePlainRoute(() => ({
	status: 200,
	body: ROBOTS,
	type: "text/plain; charset=utf-8",
}));
