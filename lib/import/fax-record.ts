import { type StaticDecode, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { TransformDecodeError } from "@sinclair/typebox/value";
import { type FaxRow, OffsetDateTime, SenderText, SLUG_PATTERN } from "../fax/index.ts";

/** One record of `fax import FILE.json`; `received_at` decodes to Unix seconds. */
export const FaxRecordSchema = Type.Object(
	{
		slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN.source })),
		source: Type.Union([Type.Literal("phone"), Type.Literal("email")]),
		sender: Type.Union([SenderText(), Type.Null()]),
		received_at: OffsetDateTime(),
		page_count: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
		file_size: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
		removed: Type.Optional(Type.Boolean()),
	},
	{ additionalProperties: false },
);

export type FaxRecord = StaticDecode<typeof FaxRecordSchema>;

const check = TypeCompiler.Compile(FaxRecordSchema);

// Clearer than TypeBox's own wording for the fields operators get wrong most.
const FIELD_RULES: Record<string, string> = {
	source: 'must be "phone" or "email"',
	received_at: "must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z",
};

export type RecordCheck = { ok: true; record: FaxRecord } | { ok: false; reason: string };

function invalid(field: string, message: string): RecordCheck {
	const reason = FIELD_RULES[field] ?? message.charAt(0).toLowerCase() + message.slice(1);
	return { ok: false, reason: `${field}: ${reason}` };
}

/** Checks one record: its schema, its time, then the rule that spans two fields. */
export function checkFaxRecord(value: unknown): RecordCheck {
	if (!check.Check(value)) {
		const first = check.Errors(value).First();
		return invalid(first?.path.slice(1) || "record", first?.message ?? "is invalid");
	}
	let record: FaxRecord;
	try {
		record = check.Decode(value);
	} catch (error) {
		if (!(error instanceof TransformDecodeError)) throw error;
		return invalid(error.path.slice(1), error.message);
	}
	if ((record.page_count === null) !== (record.file_size === null)) {
		return {
			ok: false,
			reason: "page_count and file_size must both be null (not processable) or both be set",
		};
	}
	return { ok: true, record };
}

/** The row a checked record becomes, with its slug chosen. */
export function toFaxRow(record: FaxRecord, slug: string): FaxRow {
	return {
		slug,
		source: record.source,
		sender: record.sender,
		received_at: record.received_at,
		page_count: record.page_count,
		file_size: record.file_size,
	};
}
