import { defineAdminRoute } from "../../lib/http/index.ts";
import { errorMessage } from "../../lib/util/index.ts";

/**
 * GET /readyz on the admin listener: 200 when the database answers a query and
 * the server is not draining, 503 otherwise. The rate-limit backend is named
 * but never makes the instance unready: counting in process memory while Redis
 * is down keeps the service correct.
 */
export const route = defineAdminRoute((_request, { operations }) => {
	const rateLimit = operations.rateLimitBackend();
	if (operations.isDraining()) {
		return {
			status: 503,
			body: JSON.stringify({ status: "draining", database: "not checked", rate_limit: rateLimit }),
		};
	}
	try {
		operations.checkDatabase();
	} catch (error) {
		return {
			status: 503,
			body: JSON.stringify({ status: "unready", database: errorMessage(error), rate_limit: rateLimit }),
		};
	}
	return { status: 200, body: JSON.stringify({ status: "ready", database: "ok", rate_limit: rateLimit }) };
});
