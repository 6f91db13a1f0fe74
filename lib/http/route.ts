import type { StaticDecode, TObject, TSchema } from "@sinclair/typebox";
import type { FaxStore } from "../db/index.ts";
import type { FaxRow } from "../fax/index.ts";
import { createQueryValidator } from "./query.ts";

/** What a handler may use. */
export interface RouteServices {
	store: FaxStore;
	/** The JSON text of a fax as the API shows it. */
	faxJson: (row: FaxRow) => string;
	/** Where the PDFs and thumbnails are. */
	storageDir: string;
	/** The OpenAPI description of the API, as JSON text. */
	apiDescription: string;
}

export interface RouteRequest {
	/** The raw query string, without its `?`. */
	search: string;
	params: Record<string, string>;
	/** Request time, Unix seconds. */
	now: number;
}

export interface RouteAnswer {
	status: number;
	/** JSON text unless `type` says otherwise: handlers serialise, so faxes can be served from remembered text. */
	body: string | Blob;
	/** Content-Type; JSON when absent. */
	type?: string;
}

/**
 * What a file under routes/ exports: its GET handler and whether the shared
 * rate limit counts it. A rate-limited route is an endpoint of the API: every
 * answer carries the rate-limit headers and any method but GET and HEAD is a 405.
 */
export interface Route {
	rateLimited: boolean;
	get(request: RouteRequest, services: RouteServices): RouteAnswer | Promise<RouteAnswer>;
}

/** An answer particular to one endpoint, as its description shows it. */
export interface AnswerDoc {
	/** When this answer comes; Markdown. */
	description: string;
	/** The JSON body. */
	body: TSchema;
}

/**
 * How an endpoint shows in the API description (lib/openapi). The answers every
 * endpoint gives (422 from its query schema, 429, 403, 500, 503) are added there.
 */
export interface EndpointDoc {
	operationId: string;
	summary: string;
	/** Markdown. */
	description: string;
	/** Path parameters by name; each schema carries its description. */
	params?: Record<string, TSchema>;
	answers: Record<number, AnswerDoc>;
}

/** A route that is an API endpoint: rate limited, its query validated by its schema, described. */
export interface Endpoint extends Route {
	query: TObject;
	doc: EndpointDoc;
}

export function isEndpoint(route: Route): route is Endpoint {
	return "doc" in route;
}

/** The query-validated query, decoded, beside the rest of the request. */
export interface EndpointRequest<Q> extends Omit<RouteRequest, "search"> {
	query: Q;
}

/**
 * An API endpoint: its query schema and its description beside its handler.
 * The handler only ever sees a query that passed the schema; anything else is
 * answered 422 with the schema's messages.
 */
export function defineEndpoint<Q extends TObject>(definition: {
	query: Q;
	doc: EndpointDoc;
	get: (request: EndpointRequest<StaticDecode<Q>>, services: RouteServices) => RouteAnswer;
}): Endpoint & { query: Q } {
	const validate = createQueryValidator(definition.query);
	return {
		rateLimited: true,
		query: definition.query,
		doc: definition.doc,
		get({ search, params, now }, services) {
			const query = validate(search);
			if (!query.ok) {
				const first = Object.values(query.errors)[0]?.[0] ?? "";
				return { status: 422, body: JSON.stringify({ message: first, errors: query.errors }) };
			}
			return definition.get({ query: query.value, params, now }, services);
		},
	};
}

/** A path the server answers outside the rate limit: files, pages, descriptions, probes. */
export function definePlainRoute(get: Route["get"]): Route {
	return { rateLimited: false, get };
}
