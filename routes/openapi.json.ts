import { definePlainRoute } from "../lib/http/index.ts";

/** GET /openapi.json: the OpenAPI 3.1 description of the API, the same text as the repository's openapi.json. */
export const route = definePlainRoute((_request, { apiDescription }) => ({
	status: 200,
	body: apiDescription,
}));
