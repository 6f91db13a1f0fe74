// The HTTP layer: the Elysia app, its plugins, and what route files are made of.
export {
	ANSWER_HEADERS,
	ENCODING_HEADERS,
	FORBIDDEN_BODY,
	messageBody,
	REPRESENTATION_HEADERS,
} from "./answer-schemas.ts";
export { type AppOptions, createAdminApp, createApp } from "./app.ts";
export { StoredFile } from "./file-answer.ts";
export { EMPTY_MESSAGE, ERROR_MESSAGES, JSON_TYPE, messageJson } from "./json.ts";
export { oneWriteBody, oneWriteReady } from "./one-write-adapter.ts";
export {
	createQueryValidator,
	type QueryResult,
	singleValueMessage,
	type ValidationErrors,
} from "./query.ts";
export { RATE_LIMIT_HEADERS, THROTTLED_HEADERS } from "./rate-limit-fields.ts";
export type { AnsweredRequest, RequestObserver } from "./request-log.ts";
export {
	type AnswerDoc,
	defineAdminRoute,
	defineEndpoint,
	definePlainRoute,
	type Endpoint,
	type EndpointDoc,
	type EndpointRequest,
	isEndpoint,
	type Listener,
	type Operations,
	type Route,
	type RouteAnswer,
	type RouteRequest,
	type RouteServices,
} from "./route.ts";
export { routePathOf } from "./route-path.ts";
export { RECEIVED_FILE_POLICY, SECURITY_HEADERS } from "./security-headers.ts";
