import { Elysia } from "elysia";
import { isPassingStorageFailure } from "../db/index.ts";
import type { EndpointMiss } from "./empty-slug.ts";
import { EMPTY_MESSAGE, ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
import { type RequestObserver, requestIdOf } from "./request-log.ts";

const SERVER_ERROR = messageJson(ERROR_MESSAGES.serverError);
const UNAVAILABLE = messageJson(ERROR_MESSAGES.unavailable);

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
