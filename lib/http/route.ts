import type { StaticDecode, TObject, TSchema } from "@sinclair/typebox";
import type { SendTo } from "../config.ts";
import type { FaxStore } from "../db/index.ts";
import type { HeldLists, HoldableRequest } from "../hold/index.ts";
import type { CallStreams, CallsShown } from "../live-calls/index.ts";
import type { PageMemory } from "../pages/index.ts";
import type { RecentFaxes } from "../recent/index.ts";
import type { Representation } from "../representation/index.ts";
import type { StoredFile } from "./file-answer.ts";
import { createQueryValidator } from "./query.ts";

/** What the routes of the admin listener report on. */
export interface Operations {
	/** True from the first moment of a shutdown drain. */
	isDraining(): boolean;
	/** Runs a query; throws when the database cannot answer. */
	checkDatabase(): Promise<void>;
	/** Null when the document pipeline loads on this host (`fax check`), else the part that does not. */
	documentPipeline(): Promise<string | null>;
	/** Which store counts the rate limit now, and how its Redis is reached (null without Redis). */
	rateLimit(): { backend: string; redisMode: string | null };
	/** The Prometheus text and its content type. */
	metrics(): Promise<{ type: string; body: string }>;
}

/** What a handler may use. */
export interface RouteServices {
	store: FaxStore;
	/** The faxes as the API answers them: the newest from memory, older ones from SQLite. */
	faxes: RecentFaxes;
	/** The list requests with `wait` this instance holds. */
	heldLists: HeldLists;
	/** The calls being received now, as the pages show them, and the pages' streams of them. */
	calls: CallsShown;
	callStreams: CallStreams;
	/** The site's pages, made once per state of what they show. */
	pages: PageMemory;
	/** Where the PDFs and thumbnails are. */
	storageDir: string;
	/** The origin the faxes' PDFs and thumbnails are served from (CDN_BASE_URL's), for the pages' policies. */
	cdnOrigin: string;
	/** Where testers send their tests (TEST_FAX_NUMBERS, TEST_FAX_ADDRESSES), for the pages. */
	sendTo: SendTo;
	/** A download is refused (503) while this many requests are being answered already. */
	maxDownloads: number;
	/** The OpenAPI description of the API, as JSON text. */
	apiDescription: Representation;
	operations: Operations;
}

/**
 * The public listener (PORT) serves the API; the admin listener (ADMIN_PORT)
 * serves the operator's probes and metrics and nothing of the API.
 */
export type Listener = "public" | "admin";

export interface RouteRequest {
	/** The raw query string, without its `?`. */
	search: string;
	params: Record<string, string>;
	/** Request time, Unix seconds. */
	now: number;
	/** Requests this listener is answering now, this one included. */
	inFlight(): number;
	/** What holding the answer needs; absent where the answer comes at once (HEAD, the admin listener). */
	hold?: () => HoldableRequest;
}

export interface RouteAnswer {
	status: number;
	/**
	 * JSON text unless `type` says otherwise: handlers serialise, so faxes can
	 * be served from remembered text. A Representation is answered with its
	 * ETag, compressed as the request accepts, or 304 to a matching If-None-Match.
	 * A file is answered with its validators and byte ranges (lib/http/file-answer.ts).
	 * A stream is written as it comes (server-sent events).
	 */
	body: string | StoredFile | Representation | ReadableStream<Uint8Array>;
	/** Content-Type; JSON when absent. */
	type?: string;
	/** Further headers of this answer. */
	headers?: Record<string, string>;
}

/**
 * What a file under routes/ exports: its GET handler, the listener it is
 * served on, and whether the shared rate limit counts it. A rate-limited route
 * is an endpoint of the API: every answer carries the rate-limit headers and
 * any method but GET and HEAD is a 405.
 */
export interface Route {
	listener: Listener;
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
export interface EndpointRequest<Q> extends Omit<RouteRequest, "search" | "inFlight"> {
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
	get: (
		request: EndpointRequest<StaticDecode<Q>>,
		services: RouteServices,
	) => RouteAnswer | Promise<RouteAnswer>;
}): Endpoint & { query: Q } {
	const validate = createQueryValidator(definition.query);
	// The validator hands out the same errors for the same query string, so their text is built once.
	const invalidBodies = new WeakMap<object, string>();
	const invalidBody = (errors: Record<string, string[]>) => {
		let body = invalidBodies.get(errors);
		if (body === undefined) {
			const first = Object.values(errors)[0]?.[0] ?? "";
			body = JSON.stringify({ message: first, errors });
			invalidBodies.set(errors, body);
		}
		return body;
	};
	return {
		listener: "public",
		rateLimited: true,
		query: definition.query,
		doc: definition.doc,
		get({ search, params, now, hold }, services) {
			const query = validate(search);
			if (!query.ok) return { status: 422, body: invalidBody(query.errors) };
			return definition.get({ query: query.value, params, now, hold }, services);
		},
	};
}

/** A path the server answers outside the rate limit: files, pages, descriptions. */
export function definePlainRoute(get: Route["get"]): Route {
	return { listener: "public", rateLimited: false, get };
}

/** A path of the admin listener: probes and metrics, never reachable on the public port. */
export function defineAdminRoute(get: Route["get"]): Route {
	return { listener: "admin", rateLimited: false, get };
}
