import type { AnsweredRequest, RequestObserver } from "../http/index.ts";
import type { Logger } from "../log/index.ts";
import { clientNetworkOf } from "../net/index.ts";
import type { ServiceMetrics } from "./metrics.ts";

// Any other method is one label, so a client inventing methods cannot grow the metrics.
const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);
const INFO = 30;

function sqliteCode(error: unknown): string | null {
	if (!(error instanceof Error) || error.name !== "SQLiteError") return null;
	const code = (error as { code?: unknown }).code;
	return typeof code === "string" ? code : "unknown";
}

/**
 * The access log and the request metrics: one JSON line and one count per
 * answer. The line holds the route pattern, never the path or query (a
 * `from=` holds a raw sender), and the client's network, never its address.
 */
export function createRequestObserver(options: { logger: Logger; metrics: ServiceMetrics }): RequestObserver {
	const { logger, metrics } = options;
	// The level is fixed at start; checking it once spares the client's network when nothing is logged.
	const logsAnswers = logger.levelVal <= INFO;
	// A child logger per known method, route pattern and status (a few dozen):
	// pino serialises a child's fields once, not on every line.
	const byAnswer = new Map<string, Logger>();
	const answerLogger = (method: string, route: string, status: number): Logger => {
		if (!METHODS.has(method)) return logger.child({ method, route, status });
		const key = `${method} ${status} ${route}`;
		let child = byAnswer.get(key);
		if (child === undefined) {
			child = logger.child({ method, route, status });
			byAnswer.set(key, child);
		}
		return child;
	};
	return {
		answered(answer: AnsweredRequest) {
			const route = answer.route ?? "none";
			const method = METHODS.has(answer.method) ? answer.method : "other";
			metrics.answered(route, method, answer.status, answer.durationMs / 1000);
			if (!logsAnswers) return;
			answerLogger(answer.method, route, answer.status).info(
				{
					req_id: answer.requestId,
					duration_ms: Math.round(answer.durationMs * 1000) / 1000,
					client: clientNetworkOf(answer.clientKey),
				},
				"request",
			);
		},
		failed(error: unknown, requestId: string) {
			const code = sqliteCode(error);
			if (code !== null) metrics.sqliteError(code);
			logger.error({ req_id: requestId, err: error }, "request failed");
		},
	};
}
