import type { TSchema } from "@sinclair/typebox";

/** A JSON Schema (the OpenAPI 3.1 dialect) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** Keywords of our TypeBox schemas that are for this service only, not for readers. */
const PRIVATE_KEYWORDS = new Set(["errorMessage"]);

/**
 * A schema may carry, under this keyword, the schema a reader sees in its
 * place: `limit` is checked as the text of the query string but shown as the
 * integer it means, so generated clients type it as a number.
 */
export const DESCRIBED_AS = "describedAs";

function isObject(value: unknown): value is JsonSchema {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{type: "string", const: "phone"}` and the like: a literal of one primitive type. */
function literalOf(schema: unknown): { type: string; value: unknown } | null {
	if (!isObject(schema) || !("const" in schema) || typeof schema.type !== "string") return null;
	return { type: schema.type, value: schema.const };
}

/**
 * TypeBox writes a nullable as `anyOf: [X, {type: "null"}]` and a choice of
 * literals as `anyOf` of `const`s; readers and renderers take `type: [X, "null"]`
 * and `enum` far better, and both mean the same.
 */
function simplifyUnion(schema: JsonSchema): JsonSchema {
	const options = schema.anyOf;
	if (!Array.isArray(options)) return schema;
	const { anyOf: _, ...rest } = schema;
	const literals = options.map(literalOf);
	if (literals.every((literal) => literal !== null && literal.type === literals[0]?.type)) {
		return { ...rest, type: literals[0]?.type, enum: literals.map((literal) => literal?.value) };
	}
	const [first, second] = options;
	if (options.length === 2 && isObject(first) && typeof first.type === "string" && isObject(second)) {
		if (second.type === "null" && Object.keys(second).length === 1) {
			return { ...first, ...rest, type: [first.type, "null"] };
		}
	}
	return schema;
}

/**
 * A TypeBox schema as the OpenAPI description shows it: the wire form (a
 * transform shows as the text it decodes from) or what it is `describedAs`,
 * without this service's own keywords, and with each schema named in
 * `components` replaced by a `$ref` (at the top too, with `refAtTop`).
 */
export function toJsonSchema(
	schema: TSchema,
	components: Map<string, string> = new Map(),
	refAtTop = false,
): JsonSchema {
	// JSON drops TypeBox's symbol keys (kinds, transforms, optional marks): what is left is the wire form.
	const plain: unknown = JSON.parse(JSON.stringify(schema));
	const visit = (node: unknown, top: boolean): unknown => {
		if (Array.isArray(node)) return node.map((item) => visit(item, false));
		if (!isObject(node)) return node;
		const named = top ? undefined : components.get(JSON.stringify(node));
		if (named !== undefined) return { $ref: `#/components/schemas/${named}` };
		const shown = node[DESCRIBED_AS];
		if (isObject(shown)) {
			const description = node.description;
			return visit({ ...shown, ...(description === undefined ? {} : { description }) }, top);
		}
		const out: JsonSchema = {};
		for (const [keyword, value] of Object.entries(node)) {
			if (PRIVATE_KEYWORDS.has(keyword)) continue;
			// Inside these, keys are names or values, not schemas.
			out[keyword] =
				keyword === "properties" && isObject(value)
					? Object.fromEntries(Object.entries(value).map(([name, item]) => [name, visit(item, false)]))
					: keyword === "examples" || keyword === "enum" || keyword === "required" || keyword === "const"
						? value
						: visit(value, false);
		}
		const { type, description, ...rest } = simplifyUnion(out);
		// What a reader looks for first comes first.
		return {
			...(type === undefined ? {} : { type }),
			...(description === undefined ? {} : { description }),
			...rest,
		};
	};
	return visit(plain, !refAtTop) as JsonSchema;
}

/** The key under which `toJsonSchema` recognises a component: the schema's JSON. */
export function componentKey(schema: TSchema): string {
	return JSON.stringify(schema);
}
