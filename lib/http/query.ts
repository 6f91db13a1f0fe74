import type { StaticDecode, TObject, TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { TransformDecodeError } from "@sinclair/typebox/value";

/** Per-parameter messages of a 422, in the order of the schema's properties. */
export type ValidationErrors = Record<string, string[]>;

export type QueryResult<T extends TObject> =
	| { ok: true; value: StaticDecode<T> }
	| { ok: false; errors: ValidationErrors };

/** Each query property schema carries the message a client sees when it is invalid. */
interface WithErrorMessage {
	errorMessage: string;
}

/** The 422 message of a repeated or bracketed parameter. */
export const singleValueMessage = (name: string) => `The ${name} field must be a single value.`;

function decodes(field: TypeCheck<TSchema>, value: string): boolean {
	if (!field.Check(value)) return false;
	try {
		field.Decode(value);
		return true;
	} catch (error) {
		if (error instanceof TransformDecodeError) return false;
		throw error;
	}
}

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
	// The error path checks each parameter on its own, so every invalid one is named.
	const fields = names.map(
		(name) => [name, TypeCompiler.Compile(schema.properties[name] as TSchema)] as const,
	);
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

		if (multiple.size === 0 && check.Check(values)) {
			try {
				return { ok: true, value: check.Decode(values) };
			} catch (error) {
				// A transform (a time, say) parses while decoding and throws on what its text cannot say.
				if (!(error instanceof TransformDecodeError)) throw error;
			}
		}

		const failed = new Map<string, string>();
		for (const name of multiple) failed.set(name, singleValueMessage(name));
		for (const [name, field] of fields) {
			const value = values[name];
			if (value !== undefined && !failed.has(name) && !decodes(field, value))
				failed.set(name, messageOf(name));
		}
		const errors: ValidationErrors = {};
		for (const name of names) {
			const message = failed.get(name);
			if (message !== undefined) errors[name] = [message];
		}
		return { ok: false, errors };
	};
}
