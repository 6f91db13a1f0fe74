import { definePlainRoute, type RouteAnswer } from "../../lib/http/index.ts";
import { docsPage } from "../../lib/pages/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// Made once per description (a server has one), on the first asking.
let made: { from: Representation; answer: RouteAnswer } | undefined;

/** GET /docs: the API description as a page made on the server, with no script. */
export const route = definePlainRoute((_request, { apiDescription }) => {
	if (made?.from !== apiDescription) {
		const page = docsPage(apiDescription.text);
		made = {
			from: apiDescription,
			answer: {
				status: 200,
				// About 25 KB: sent compressed, with its ETag.
				body: new Representation(page.html),
				type: "text/html; charset=utf-8",
				headers: { "content-security-policy": page.policy },
			},
		};
	}
	return made.answer;
});
