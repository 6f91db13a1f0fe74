import { defineAdminRoute } from "../../lib/http/index.ts";

/** GET /metrics on the admin listener: Prometheus text format. */
export const route = defineAdminRoute(async (_request, { operations }) => {
	const { type, body } = await operations.metrics();
	return { status: 200, body, type };
});
