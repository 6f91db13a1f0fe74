import type { StaticDecode, TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/** Per-parameter messages of a 422, in the order of the schema's properties. */
export type ValidationErrors = Record<string, string[]>;

export type QueryResult<T extends TObject> =
	| { ok: true; value: StaticDecode<T> }
	| { ok: false; errors: ValidationErrors };

/** Each query property schema carries the message a client sees when it is invalid. */
export interface WithErrorMessage {
	errorMessage: string;
}

const singleValueMessage = (name: string) => `The ${name} field must be a single value.`;

/**
 * Validates a raw query string against a TypeBox object schema. Query parsers keep
 * only the last of repeated keys and do not know `from[]`, so the raw pairs are
 * read here: a repeated or bracketed known key is invalid, an empty value is
 * absent, unknown keys are ignored.
 */
export function createQueryValidator<T extends TObject>(schema: T): (search: string) => QueryResult<T> {
	const check = TypeCompiler.Compile(schema);
	const names = Object.keys(schema.properties);
	const known = new Set(names);
	const messageOf = (name: string) =>
		(schema.properties[name] as TSchema & Partial<WithErrorMessage>).errorMessage ??
		`The ${name} field is invalid.`;

	return (search) => {
		const values: Record<string, string> = {};
		const seen = new Set<string>();
		const multiple = new Set<string>();
		for (const [rawKey, value] of new URLSearchParams(search)) {
			const bracket = rawKey.indexOf("[");
			const name = bracket === -1 ? rawKey : rawKey.slice(0, bracket);
			if (!known.has(name)) continue;
			if (bracket !== -1) multiple.add(name);
			// An empty value is absent, also beside a value of the same name.
			if (value === "") continue;
			if (seen.has(name)) multiple.add(name);
			seen.add(name);
			values[name] = value;
		}
		for (const name of multiple) delete values[name];

		if (multiple.size === 0 && check.Check(values)) return { ok: true, value: check.Decode(values) };

		const failed = new Map<string, string>();
		for (const name of multiple) failed.set(name, singleValueMessage(name));
		for (const error of check.Errors(values)) {
			const name = error.path.split("/")[1] ?? "";
			if (known.has(name) && !failed.has(name)) failed.set(name, messageOf(name));
		}
		const errors: ValidationErrors = {};
		for (const name of names) {
			const message = failed.get(name);
			if (message !== undefined) errors[name] = [message];
		}
		return { ok: false, errors };
	};
}
