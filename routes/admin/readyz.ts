import { defineAdminRoute } from "../../lib/http/index.ts";
import { errorMessage } from "../../lib/util/index.ts";

/**
 * GET /readyz on the admin listener: 200 when the database answers a query
 * within a second (asked without stopping the event loop, so a front proxy
 * that follows it takes the instance out within a second of its database
 * going away),
 * the document pipeline loads on this host (`documents`, as `fax check` says:
 * a host that cannot process the faxes it receives is not ready, though it
 * could answer the API) and the server is not draining, 503 otherwise. The rate-limit backend is named
 * but never makes the instance unready: counting in process memory while Redis
 * is down keeps the service correct. `redis_mode` names how the Redis of the
 * count is reached: single, cluster, sentinel, or null without Redis.
 */
export const route = defineAdminRoute(async (_request, { operations }) => {
	const { backend, redisMode } = operations.rateLimit();
	const answer = (status: number, state: string, database: string, documents: string) => ({
		status,
		body: JSON.stringify({ status: state, database, documents, rate_limit: backend, redis_mode: redisMode }),
	});
	if (operations.isDraining()) return answer(503, "draining", "not checked", "not checked");
	const documents = (await operations.documentPipeline()) ?? "ok";
	try {
		await operations.checkDatabase();
	} catch (error) {
		return answer(503, "unready", errorMessage(error), documents);
	}
	return documents === "ok" ? answer(200, "ready", "ok", documents) : answer(503, "unready", "ok", documents);
});
