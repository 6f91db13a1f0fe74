import { type StaticDecode, type TObject, TransformKind, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { HasTransform } from "@sinclair/typebox/value";

/** Per-parameter messages of a 422, in the order of the schema's properties. */
export type ValidationErrors = Record<string, string[]>;

export type QueryResult<T extends TObject> =
	| { ok: true; value: StaticDecode<T> }
	| { ok: false; errors: ValidationErrors };

/** Each query property schema carries the message a client sees when it is invalid. */
interface WithErrorMessage {
	errorMessage: string;
}

type Decode = (value: string) => unknown;

interface Field {
	name: string;
	check: TypeCheck<TSchema>;
	/** The property's Transform decoder; absent for a plain string. */
	decode: Decode | undefined;
}

const MAX_REMEMBERED = 1024;

/** The 422 message of a repeated or bracketed parameter. */
export const singleValueMessage = (name: string) => `The ${name} field must be a single value.`;

/**
 * A query property is a string schema, optionally with a Transform at its top
 * (a number, a time). Its decoder is called directly: TypeBox's generic
 * Decode checks the whole object again and walks it for transforms, which
 * took most of the time of validating a query.
 */
function fieldOf(name: string, schema: TSchema): Field {
	const decode = (schema as { [TransformKind]?: { Decode: Decode } })[TransformKind]?.Decode;
	if (decode === undefined && HasTransform(schema, [])) {
		throw new Error(`query property ${name}: a Transform must be the property's own schema`);
	}
	return { name, check: TypeCompiler.Compile(schema), decode };
}

// As TypeBox's Decode has it: a decoder that throws rejects the value.
function decoded(field: Field, value: string): { ok: true; value: unknown } | { ok: false } {
	if (field.decode === undefined) return { ok: true, value };
	try {
		return { ok: true, value: field.decode(value) };
	} catch {
		return { ok: false };
	}
}

/**
 * The known keys of a raw query string: their last non-empty values, and the
 * keys that were repeated or bracketed (`from[]`).
 */
function knownPairs(search: string, known: ReadonlySet<string>) {
	const values: Record<string, string> = {};
	const seen = new Set<string>();
	const multiple = new Set<string>();
	for (const [rawKey, value] of new URLSearchParams(search)) {
		const bracket = rawKey.indexOf("[");
		const name = bracket === -1 ? rawKey : rawKey.slice(0, bracket);
		if (!known.has(name)) continue;
		// A key given twice is repeated whatever its values, an empty one included.
		if (bracket !== -1 || seen.has(name)) multiple.add(name);
		seen.add(name);
		if (value !== "") values[name] = value;
	}
	return { values, multiple };
}

/**
 * Validates a raw query string against a TypeBox object schema. Query parsers keep
 * only the last of repeated keys and do not know `from[]`, so the raw pairs are
 * read here: a repeated or bracketed known key is invalid (empty values
 * included), a single empty value is absent, unknown keys are ignored.
 */
export function createQueryValidator<T extends TObject>(schema: T): (search: string) => QueryResult<T> {
	const check = TypeCompiler.Compile(schema);
	const names = Object.keys(schema.properties);
	const known = new Set(names);
	const fields = names.map((name) => fieldOf(name, schema.properties[name] as TSchema));
	const messageOf = (name: string) =>
		(schema.properties[name] as TSchema & Partial<WithErrorMessage>).errorMessage ??
		`The ${name} field is invalid.`;

	// Polling clients send the same few query strings over and over; a result
	// depends on nothing but the string, so each is validated once (a bounded
	// number of them: past it they start over). Results are shared: read only.
	const remembered = new Map<string, QueryResult<T>>();
	return (search) => {
		let result = remembered.get(search);
		if (result === undefined) {
			if (remembered.size >= MAX_REMEMBERED) remembered.clear();
			result = validate(search);
			remembered.set(search, result);
		}
		return result;
	};

	function validate(search: string): QueryResult<T> {
		const { values, multiple } = knownPairs(search, known);

		if (multiple.size === 0 && check.Check(values)) {
			const value: Record<string, unknown> = {};
			let valid = true;
			for (const field of fields) {
				const text = values[field.name];
				if (text === undefined) continue;
				const result = decoded(field, text);
				if (!result.ok) {
					valid = false;
					break;
				}
				value[field.name] = result.value;
			}
			if (valid) return { ok: true, value: value as StaticDecode<T> };
		}

		// The error path checks each parameter on its own, so every invalid one is named.
		const failed = new Map<string, string>();
		for (const name of multiple) failed.set(name, singleValueMessage(name));
		for (const field of fields) {
			const text = values[field.name];
			if (text === undefined || failed.has(field.name)) continue;
			if (!field.check.Check(text) || !decoded(field, text).ok) failed.set(field.name, messageOf(field.name));
		}
		const errors: ValidationErrors = {};
		for (const name of names) {
			const message = failed.get(name);
			if (message !== undefined) errors[name] = [message];
		}
		return { ok: false, errors };
	}
}
