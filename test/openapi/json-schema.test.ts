import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { OffsetDateTime } from "../../lib/fax/index.ts";
import { componentKey, toJsonSchema } from "../../lib/openapi/json-schema.ts";

test("a transform shows as the text it decodes from, without the service's own keywords", () => {
	const limit = Type.Transform(
		Type.String({ pattern: "^[0-9]+$", errorMessage: "Bad.", description: "How many." }),
	)
		.Decode(Number)
		.Encode(String);
	expect(toJsonSchema(limit)).toEqual({ type: "string", description: "How many.", pattern: "^[0-9]+$" });
	expect(toJsonSchema(OffsetDateTime({ errorMessage: "Bad." }))).toMatchObject({
		type: "string",
		format: "date-time",
	});
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
