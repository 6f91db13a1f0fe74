import { type Static, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { NewFax } from "../db/fax-store.ts";
import { SLUG_PATTERN } from "../fax/slug.ts";
import { OFFSET_DATE_TIME_FORMAT, parseOffsetDateTime } from "../fax/time.ts";

/** One record of `fax import FILE.json` (DECISIONS.md "Operator commands"). */
export const FaxRecordSchema = Type.Object(
	{
		slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN.source })),
		source: Type.Union([Type.Literal("phone"), Type.Literal("email")]),
		sender: Type.Union([Type.String({ maxLength: 255 }), Type.Null()]),
		received_at: Type.String({ format: OFFSET_DATE_TIME_FORMAT }),
		page_count: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
		file_size: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
		removed: Type.Optional(Type.Boolean()),
	},
	{ additionalProperties: false },
);

export type FaxRecord = Static<typeof FaxRecordSchema>;

const check = TypeCompiler.Compile(FaxRecordSchema);

// Clearer than TypeBox's own wording for the fields operators get wrong most.
const FIELD_RULES: Record<string, string> = {
	source: 'must be "phone" or "email"',
	received_at: "must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z",
};

export type RecordCheck = { ok: true; record: FaxRecord } | { ok: false; reason: string };

/** Checks one record: its schema, then the rule that spans two fields. */
export function checkFaxRecord(value: unknown): RecordCheck {
	if (!check.Check(value)) {
		const first = check.Errors(value).First();
		const field = first?.path.slice(1) || "record";
		const message = first?.message ?? "is invalid";
		const reason = FIELD_RULES[field] ?? message.charAt(0).toLowerCase() + message.slice(1);
		return { ok: false, reason: `${field}: ${reason}` };
	}
	if ((value.page_count === null) !== (value.file_size === null)) {
		return {
			ok: false,
			reason: "page_count and file_size must both be null (not processable) or both be set",
		};
	}
	return { ok: true, record: value };
}

/** The row a checked record becomes, with its slug chosen. */
export function toNewFax(record: FaxRecord, slug: string): NewFax {
	return {
		slug,
		source: record.source,
		sender: record.sender,
		received_at: parseOffsetDateTime(record.received_at) ?? 0,
		page_count: record.page_count,
		file_size: record.file_size,
	};
}
