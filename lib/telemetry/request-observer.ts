import type { AnsweredRequest, RequestObserver } from "../http/index.ts";
import { accessLineWriter, type Logger } from "../log/index.ts";
import { clientNetworkOf } from "../net/index.ts";
import type { DatabaseHealth } from "./database-health.ts";
import type { ServiceMetrics } from "./metrics.ts";

// Any other method is one label, so a client inventing methods cannot grow the metrics.
const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

function sqliteCode(error: unknown): string | null {
	if (!(error instanceof Error) || error.name !== "SQLiteError") return null;
	const code = (error as { code?: unknown }).code;
	return typeof code === "string" ? code : "unknown";
}

/**
 * The access log and the request metrics: one JSON line and one count per
 * answer. A passing failure of the database goes to DatabaseHealth; any other
 * failure is logged with its stack. The line holds the route pattern, never the path or query (a
 * `from=` holds a raw sender), and the client's network, never its address.
 */
export function createRequestObserver(options: {
	logger: Logger;
	metrics: ServiceMetrics;
	health: DatabaseHealth;
}): RequestObserver {
	const { logger, metrics, health } = options;
	const writeAccessLine = accessLineWriter(logger);
	return {
		answered(answer: AnsweredRequest) {
			const route = answer.route ?? "none";
			const method = METHODS.has(answer.method) ? answer.method : "other";
			metrics.answered(route, method, answer.status, answer.durationMs / 1000);
			writeAccessLine?.({
				method: answer.method,
				route,
				status: answer.status,
				requestId: answer.requestId,
				durationMs: Math.round(answer.durationMs * 1000) / 1000,
				client: clientNetworkOf(answer.clientKey),
			});
		},
		failed(error: unknown, requestId: string) {
			const code = sqliteCode(error);
			if (code !== null) metrics.sqliteError(code);
			// A database away is one line when it goes and one when it is back, not a stack per request.
			if (!health.failed(error)) logger.error({ req_id: requestId, err: error }, "request failed");
		},
	};
}
