import { type TObject, type TSchema, Type } from "@sinclair/typebox";
import { FaxSchema } from "../fax/index.ts";
import {
	ANSWER_HEADERS,
	type AnswerDoc,
	ENCODING_HEADERS,
	type Endpoint,
	ERROR_MESSAGES,
	FORBIDDEN_BODY,
	isEndpoint,
	messageBody,
	RATE_LIMIT_HEADERS,
	REPRESENTATION_HEADERS,
	type Route,
	routePathOf,
	singleValueMessage,
	THROTTLED_HEADERS,
} from "../http/index.ts";
import { componentKey, type JsonSchema, toJsonSchema } from "./json-schema.ts";
import { OVERVIEW } from "./overview.ts";

/** The version of the interface, not of the package: it changes only when the interface does. */
export const API_VERSION = "1.1.0";

const JSON_MEDIA = "application/json";

/** Schemas shown once under `components` and referred to wherever they appear. */
const NAMED_SCHEMAS: Record<string, TSchema> = { Fax: FaxSchema };

type HeaderSchemas = Record<string, TSchema>;

interface Answer {
	description: string;
	/** Absent for an answer without a body (304). */
	content?: { media: string; body: TSchema };
	headers: HeaderSchemas;
}

const COUNTED: HeaderSchemas = { ...ANSWER_HEADERS, ...RATE_LIMIT_HEADERS };
const REPRESENTED: HeaderSchemas = { ...COUNTED, ...REPRESENTATION_HEADERS };

function headerObject(schema: TSchema, required: boolean): JsonSchema {
	const { description, ...rest } = toJsonSchema(schema);
	return { description, required, schema: rest };
}

function headerRefs(headers: HeaderSchemas): JsonSchema {
	return Object.fromEntries(
		Object.keys(headers).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
	);
}

/** The 422 of an endpoint, generated from its query schema: which parameters, which messages. */
function validationAnswer(query: TObject): Answer {
	const names = Object.keys(query.properties);
	const messagesOf = (name: string) => {
		const own = (query.properties[name] as TSchema & { errorMessage?: string }).errorMessage;
		return [...(own === undefined ? [] : [own]), singleValueMessage(name)];
	};
	const errors = Object.fromEntries(
		names.map((name) => [
			name,
			Type.Array(Type.Union(messagesOf(name).map((message) => Type.Literal(message))), {
				minItems: 1,
				maxItems: 1,
			}),
		]),
	);
	const body = Type.Object(
		{
			message: Type.Union(
				names.flatMap(messagesOf).map((message) => Type.Literal(message)),
				{
					description: `The first error's message, in the order ${names.map((name) => `\`${name}\``).join(", ")}.`,
				},
			),
			errors: Type.Partial(Type.Object(errors), {
				additionalProperties: false,
				minProperties: 1,
				description: "For each invalid parameter, its message.",
			}),
		},
		{ additionalProperties: false },
	);
	return {
		description:
			"A query parameter is not valid: it breaks its rule, or it is repeated or bracketed " +
			"(`from[]=x`, `from=a&from=b`). An empty value (`limit=`) counts as absent; unknown parameters " +
			"are ignored.",
		content: { media: JSON_MEDIA, body },
		headers: COUNTED,
	};
}

/** The answers every endpoint may give beside its own. */
function sharedAnswers(endpoint: Endpoint): Record<number, Answer> {
	const answers: Record<number, Answer> = {};
	if (Object.keys(endpoint.query.properties).length > 0) answers[422] = validationAnswer(endpoint.query);
	answers[304] = {
		description:
			"`If-None-Match` names the current `ETag`: the answer would be the same as the one the client has. " +
			"No body; counted by the rate limit like every answer.",
		headers: REPRESENTED,
	};
	answers[429] = {
		description: "The rate limit is used up: wait `Retry-After` seconds, then ask again.",
		content: { media: JSON_MEDIA, body: messageBody(ERROR_MESSAGES.tooMany, "Too many requests.") },
		headers: { ...COUNTED, ...THROTTLED_HEADERS },
	};
	answers[400] = {
		description:
			"The request has more than one `Host` line, or a `Host` that is no host name or address with an " +
			"optional port (RFC 9112, section 3.2). Not counted by the rate limit.",
		content: { media: JSON_MEDIA, body: messageBody(ERROR_MESSAGES.badHost, "A fixed text.") },
		headers: ANSWER_HEADERS,
	};
	answers[403] = {
		description:
			"The `User-Agent` starts with `Python-urllib/`, the default of Python's `urllib`: set one of your " +
			"own. Not counted by the rate limit.",
		content: { media: "text/plain", body: FORBIDDEN_BODY },
		headers: ANSWER_HEADERS,
	};
	answers[500] = {
		description: "Something went wrong on the service's side.",
		content: { media: JSON_MEDIA, body: messageBody(ERROR_MESSAGES.serverError, "A fixed text.") },
		headers: ANSWER_HEADERS,
	};
	answers[503] = {
		description: "The service's storage is passing through a failure: ask again after `Retry-After` seconds.",
		content: { media: JSON_MEDIA, body: messageBody(ERROR_MESSAGES.unavailable, "A fixed text.") },
		headers: { ...ANSWER_HEADERS, "Retry-After": THROTTLED_HEADERS["Retry-After"] },
	};
	return answers;
}

/** An endpoint's own answer; its 200 also carries the ETag, Vary and, when compressed, Content-Encoding. */
function ownAnswer(status: number, doc: AnswerDoc): Answer {
	return {
		description: doc.description,
		content: { media: JSON_MEDIA, body: doc.body },
		headers: status === 200 ? { ...REPRESENTED, ...ENCODING_HEADERS } : COUNTED,
	};
}

/** The request headers every endpoint reads beside its parameters. */
const REQUEST_HEADERS: JsonSchema[] = [
	{
		name: "If-None-Match",
		in: "header",
		required: false,
		description:
			"The `ETag` of an answer the client has: while the answer is still the same, it is a 304 with no body.",
		schema: { type: "string" },
	},
	{
		name: "Accept-Encoding",
		in: "header",
		required: false,
		description:
			"`br` and `gzip` are offered, with q-values respected and `br` preferred on a tie; without it, or " +
			"with neither acceptable, the body is not compressed.",
		schema: { type: "string" },
	},
];

function operation(endpoint: Endpoint, components: Map<string, string>): JsonSchema {
	const { doc, query } = endpoint;
	const parameter = (name: string, where: "path" | "query", schema: TSchema, required: boolean) => {
		const { description, ...rest } = toJsonSchema(schema, components);
		return { name, in: where, required, description, schema: rest };
	};
	const answers: Record<number, Answer> = {};
	for (const [status, answer] of Object.entries(doc.answers))
		answers[Number(status)] = ownAnswer(Number(status), answer);
	Object.assign(answers, sharedAnswers(endpoint));
	const statuses = Object.keys(answers)
		.map(Number)
		.sort((a, b) => a - b);
	return {
		tags: [FAXES_TAG.name],
		operationId: doc.operationId,
		summary: doc.summary,
		description: doc.description,
		parameters: [
			...Object.entries(doc.params ?? {}).map(([name, schema]) => parameter(name, "path", schema, true)),
			...Object.entries(query.properties).map(([name, schema]) =>
				parameter(name, "query", schema, (query.required ?? []).includes(name)),
			),
			...REQUEST_HEADERS,
		],
		responses: Object.fromEntries(
			statuses.map((status) => {
				const answer = answers[status] as Answer;
				return [
					String(status),
					{
						description: answer.description,
						headers: headerRefs(answer.headers),
						...(answer.content && {
							content: {
								[answer.content.media]: { schema: toJsonSchema(answer.content.body, components, true) },
							},
						}),
					},
				];
			}),
		),
	};
}

/**
 * HEAD of an endpoint: the GET's status and headers without a body
 * (DECISIONS: "same status and headers, no body").
 */
function headOperation(get: JsonSchema): JsonSchema {
	const responses = Object.fromEntries(
		Object.entries(get.responses as Record<string, JsonSchema>).map(([status, { content: _, ...answer }]) => [
			status,
			answer,
		]),
	);
	return {
		...get,
		operationId: `${get.operationId}Head`,
		summary: `${get.summary}: status and headers only`,
		description: "The status and headers the GET would answer, without the body. Counted like a GET.",
		responses,
	};
}

/** The one group of operations: both endpoints read the one resource. */
const FAXES_TAG = { name: "Faxes", description: "The test faxes of the last 30 days: the list and one fax." };

/** `/api/faxes/:slug` → `/api/faxes/{slug}`. */
function openApiPath(file: string): string {
	return routePathOf(file).replace(/:(\w+)/g, "{$1}");
}

/**
 * The OpenAPI 3.1 description of the API, generated from the endpoints' own
 * schemas (query, path parameters, bodies) and the headers the HTTP layer sets.
 * Routes that are no endpoint (files, pages) are not part of the API, nor is
 * anything of the admin listener.
 */
export function buildApiDescription(routes: Record<string, Route>): JsonSchema {
	const components = new Map(
		Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [componentKey(schema), name]),
	);
	const paths: JsonSchema = {};
	for (const [file, route] of Object.entries(routes)) {
		if (route.listener !== "public" || !isEndpoint(route)) continue;
		const get = operation(route, components);
		paths[openApiPath(file)] = { get, head: headOperation(get) };
	}
	const allHeaders: HeaderSchemas = {
		...ANSWER_HEADERS,
		...RATE_LIMIT_HEADERS,
		...THROTTLED_HEADERS,
		...REPRESENTATION_HEADERS,
		...ENCODING_HEADERS,
	};
	return {
		openapi: "3.1.0",
		info: {
			title: "testfax API",
			version: API_VERSION,
			summary: "Read-only JSON API of a fax test site: list and fetch public test faxes.",
			description: OVERVIEW,
			contact: { name: "The testfax-api maintainers" },
			license: { name: "MIT", identifier: "MIT" },
		},
		tags: [FAXES_TAG],
		servers: [{ url: "/", description: "The server that serves this description." }],
		security: [],
		paths,
		components: {
			schemas: Object.fromEntries(
				Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [name, toJsonSchema(schema)]),
			),
			headers: Object.fromEntries(
				Object.entries(allHeaders).map(([name, schema]) => [
					name,
					headerObject(schema, !(name in ENCODING_HEADERS)),
				]),
			),
		},
	};
}

/** The description as the server serves it and the repository keeps it (`openapi.json`). */
export function apiDescriptionText(routes: Record<string, Route>): string {
	// Two spaces: YAML-minded tools (Spectral) warn on tab indentation.
	return `${JSON.stringify(buildApiDescription(routes), null, 2)}\n`;
}
