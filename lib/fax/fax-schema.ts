import { type Static, Type } from "@sinclair/typebox";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
	Type.Union([schema, Type.Null()]);

/** The fax resource of spec part 2: the list element and the single answer alike. */
export const FaxSchema = Type.Object(
	{
		slug: Type.String({ pattern: "^fax_[A-Za-z0-9]+$" }),
		source: Type.Union([Type.Literal("phone"), Type.Literal("email")]),
		from: Nullable(Type.String()),
		received_at: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$" }),
		page_count: Nullable(Type.Integer({ minimum: 1 })),
		file_size: Nullable(Type.Integer({ minimum: 0 })),
		pdf_url: Nullable(Type.String({ pattern: "^https?://" })),
		thumbnail_url: Nullable(Type.String({ pattern: "^https?://" })),
		view_url: Type.String({ pattern: "^https?://" }),
	},
	{ additionalProperties: false },
);

export type Fax = Static<typeof FaxSchema>;

export const FaxListSchema = Type.Array(FaxSchema, { maxItems: 100 });
