import type { StaticDecode, TObject } from "@sinclair/typebox";
import type { FaxRow, FaxStore } from "../db/fax-store.ts";
import { createQueryValidator } from "./query.ts";

/** What a handler may use: the store and the serialiser of faxes. */
export interface RouteServices {
	store: FaxStore;
	/** The JSON text of a fax as the API shows it. */
	faxJson: (row: FaxRow) => string;
}

export interface RouteRequest<Q> {
	query: Q;
	params: Record<string, string>;
	/** Request time, Unix seconds. */
	now: number;
}

export interface RouteAnswer {
	status: number;
	/** JSON text: handlers serialise, so faxes can be served from their remembered text. */
	body: string;
}

/** One endpoint as the app mounts it: raw request parts in, status and body out. */
export interface Route {
	serve(search: string, params: Record<string, string>, now: number, services: RouteServices): RouteAnswer;
}

/**
 * A file in routes/ defines its query schema beside its GET handler; the handler
 * only ever sees a query that passed the schema, anything else is answered 422
 * with the schema's messages (spec part 2, "Validation error object").
 */
export function defineRoute<Q extends TObject>(definition: {
	query: Q;
	handle: (request: RouteRequest<StaticDecode<Q>>, services: RouteServices) => RouteAnswer;
}): Route {
	const validate = createQueryValidator(definition.query);
	return {
		serve(search, params, now, services) {
			const query = validate(search);
			if (!query.ok) {
				const first = Object.values(query.errors)[0]?.[0] ?? "";
				return { status: 422, body: JSON.stringify({ message: first, errors: query.errors }) };
			}
			return definition.handle({ query: query.value, params, now }, services);
		},
	};
}
