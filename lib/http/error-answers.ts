import { Elysia } from "elysia";
import { isPassingPostgresFailure } from "../db/index.ts";
import type { EndpointMiss } from "./empty-slug.ts";
import { EMPTY_MESSAGE, ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { type RequestObserver, requestIdOf } from "./request-log.ts";

const SERVER_ERROR = messageJson(ERROR_MESSAGES.serverError);
const UNAVAILABLE = messageJson(ERROR_MESSAGES.unavailable);

// SQLite failing for a passing reason (disk full, an I/O error, a lock held
// too long), or PostgreSQL away (stopped, unreachable, failing over), is no
// fault of the request: 503 tells clients to retry. Anything else (a corrupt
// file, a bug) is a 500.
const PASSING_STORAGE_FAILURE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM)/;

function isPassingStorageFailure(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return (
		(error instanceof Error &&
			error.name === "SQLiteError" &&
			typeof code === "string" &&
			PASSING_STORAGE_FAILURE.test(code)) ||
		isPassingPostgresFailure(error)
	);
}

/**
 * Unknown paths answer 404 `{"message":""}`, unless `endpointMiss` answers
 * them as an endpoint's; a failure while answering is a reported 503 or 500.
 */
export function errorAnswers(failed: RequestObserver["failed"], endpointMiss?: EndpointMiss) {
	return new Elysia().onError({ as: "global" }, async ({ code, error, set, request, server }) => {
		if (code === "NOT_FOUND") {
			const endpoint = await endpointMiss?.(request, server, set);
			if (endpoint !== undefined) return endpoint;
			set.headers["content-type"] = JSON_TYPE;
			set.status = 404;
			return EMPTY_MESSAGE;
		}
		set.headers["content-type"] = JSON_TYPE;
		failed(error, requestIdOf(set));
		if (isPassingStorageFailure(error)) {
			set.status = 503;
			set.headers["retry-after"] = "5";
			return UNAVAILABLE;
		}
		set.status = 500;
		return SERVER_ERROR;
	});
}
