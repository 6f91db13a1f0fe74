import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { OFFSET_DATE_TIME_PATTERN, OffsetDateTime, parseOffsetDateTime } from "../../lib/fax/index.ts";
import { componentKey, toJsonSchema } from "../../lib/openapi/json-schema.ts";
import { since } from "../fuzz/queries.ts";

test("a transform shows as the text it decodes from, without the service's own keywords", () => {
	const limit = Type.Transform(
		Type.String({ pattern: "^[0-9]+$", errorMessage: "Bad.", description: "How many." }),
	)
		.Decode(Number)
		.Encode(String);
	expect(toJsonSchema(limit)).toEqual({ type: "string", description: "How many.", pattern: "^[0-9]+$" });
	expect(toJsonSchema(OffsetDateTime({ errorMessage: "Bad." }))).toEqual({
		type: "string",
		pattern: OFFSET_DATE_TIME_PATTERN,
	});
});

test("a schema described as another shows as that one, keeping its description", () => {
	const limit = Type.String({
		pattern: "^[0-9]+$",
		description: "How many.",
		describedAs: { type: "integer", minimum: 1 },
	});
	expect(toJsonSchema(limit)).toEqual({ type: "integer", description: "How many.", minimum: 1 });
});

// The description's pattern is what clients validate with: it must admit
// exactly what the server reads, no second 60, no +24:00, no February 30.
test("the since pattern admits exactly the texts the server reads", () => {
	const pattern = new RegExp(OFFSET_DATE_TIME_PATTERN);
	fc.assert(
		fc.property(since, (value) => {
			expect([value, pattern.test(value)]).toEqual([value, parseOffsetDateTime(value) !== null]);
		}),
		{ numRuns: 20_000 },
	);
	for (const refused of [
		"2016-12-31T23:59:60Z",
		"2026-11-21T10:00:00+24:00",
		"2026-02-29T10:00:00Z",
		"1900-02-29T00:00:00Z",
	])
		expect([refused, pattern.test(refused)]).toEqual([refused, false]);
	for (const read of ["2024-02-29T10:00:00Z", "2000-02-29T00:00:00+0100", "2026-11-21T10:00:00.5-23:59"])
		expect([read, pattern.test(read)]).toEqual([read, true]);
});

test("a nullable becomes a type list and a choice of literals an enum", () => {
	expect(
		toJsonSchema(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "Pages." })),
	).toEqual({
		type: ["integer", "null"],
		description: "Pages.",
		minimum: 1,
	});
	expect(toJsonSchema(Type.Union([Type.Literal("phone"), Type.Literal("email")]))).toEqual({
		type: "string",
		enum: ["phone", "email"],
	});
	const mixed = Type.Union([Type.String(), Type.Integer()]);
	expect(toJsonSchema(mixed)).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
});

test("a named schema inside another becomes a reference, but not at the top", () => {
	const Item = Type.Object({ id: Type.String() });
	const components = new Map([[componentKey(Item), "Item"]]);
	expect(toJsonSchema(Type.Array(Item), components)).toEqual({
		type: "array",
		items: { $ref: "#/components/schemas/Item" },
	});
	expect(toJsonSchema(Item, components)).toEqual({
		type: "object",
		properties: { id: { type: "string" } },
		required: ["id"],
	});
});
