// The HTTP layer: the Elysia app, its plugins, and what route files are made of.
export { type AppOptions, createApp } from "./app.ts";
export { EMPTY_MESSAGE, JSON_TYPE } from "./json.ts";
export { createQueryValidator, type QueryResult, type ValidationErrors } from "./query.ts";
export {
	defineEndpoint,
	definePlainRoute,
	type EndpointRequest,
	type Route,
	type RouteAnswer,
	type RouteRequest,
	type RouteServices,
} from "./route.ts";
export { routePathOf } from "./route-path.ts";
