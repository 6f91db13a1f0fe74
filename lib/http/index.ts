// The HTTP layer: the Elysia app, its plugins, and what route files are made of.
export { type AppOptions, createAdminApp, createApp } from "./app.ts";
export { EMPTY_MESSAGE, JSON_TYPE } from "./json.ts";
export { createQueryValidator, type QueryResult, type ValidationErrors } from "./query.ts";
export type { AnsweredRequest, RequestObserver } from "./request-log.ts";
export {
	defineAdminRoute,
	defineEndpoint,
	definePlainRoute,
	type EndpointRequest,
	type Listener,
	type Operations,
	type Route,
	type RouteAnswer,
	type RouteRequest,
	type RouteServices,
} from "./route.ts";
export { routePathOf } from "./route-path.ts";
