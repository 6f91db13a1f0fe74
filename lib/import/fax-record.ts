import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import {
	cutSender,
	type FaxRow,
	formatUtcSeconds,
	MAX_SENDER_LENGTH,
	parseOffsetDateTime,
	SLUG_PATTERN,
} from "../fax/index.ts";

/**
 * Each field of a record of `fax import FILE.json`, with the rule a person
 * reads when it is broken (the words of docs/operations/instance.md).
 */
const FIELDS = {
	slug: {
		schema: Type.String({ pattern: SLUG_PATTERN.source }),
		required: false,
		rule: "must be fax_ followed by letters and digits only, like fax_a1B2c3",
	},
	source: {
		schema: Type.Union([Type.Literal("phone"), Type.Literal("email")]),
		required: true,
		rule: 'must be "phone" or "email"',
	},
	sender: {
		// The length is counted in characters as a reader sees them (isLongSender).
		schema: Type.Union([Type.String(), Type.Null()]),
		required: true,
		rule: `must be the raw sender as text of at most ${MAX_SENDER_LENGTH} characters, or null for no sender ID`,
	},
	received_at: {
		schema: Type.String(),
		required: true,
		rule: "must be an ISO 8601 date-time with an offset, like 2026-11-21T10:00:00Z",
	},
	page_count: {
		schema: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
		required: true,
		rule: "must be a whole number of 1 or more, or null for a fax that could not be processed",
	},
	file_size: {
		schema: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
		required: true,
		rule: "must be the PDF's size in bytes, a whole number of 0 or more, or null for a fax that could not be processed",
	},
	removed: {
		schema: Type.Boolean(),
		required: false,
		rule: "must be true (a removed fax) or false",
	},
} satisfies Record<string, { schema: TSchema; required: boolean; rule: string }>;

type FieldName = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** One record as the file holds it; `received_at` is still text. */
const RecordSchema = Type.Object(
	Object.fromEntries(
		FIELD_NAMES.map((name) => {
			const { schema, required } = FIELDS[name];
			return [name, required ? schema : Type.Optional(schema)];
		}),
	) as { [K in FieldName]: (typeof FIELDS)[K]["schema"] },
	{ additionalProperties: false },
);

type RecordText = Static<typeof RecordSchema>;

/** A checked record, `received_at` in Unix seconds. */
export interface FaxRecord extends Omit<RecordText, "received_at"> {
	received_at: number;
}

/** How far ahead of the importing machine's clock `received_at` may lie: clocks drift. */
export const MAX_FUTURE_SECONDS = 300;

const wholeRecord = TypeCompiler.Compile(RecordSchema);
const fieldChecks = {} as Record<FieldName, { Check(value: unknown): boolean }>;
for (const name of FIELD_NAMES) fieldChecks[name] = TypeCompiler.Compile<TSchema>(FIELDS[name].schema);

export type RecordCheck = { ok: true; record: FaxRecord } | { ok: false; problems: string[] };

/** Longer than a sender may be, in characters as a reader counts them (emoji, accents). */
function isLongSender(sender: unknown): boolean {
	return typeof sender === "string" && cutSender(sender) !== sender;
}

function fieldOk(name: FieldName, value: unknown): boolean {
	return fieldChecks[name].Check(value) && !(name === "sender" && isLongSender(value));
}

function isFieldName(name: string): name is FieldName {
	return Object.hasOwn(FIELDS, name);
}

/** Every problem of a record that failed the schema, one per field. */
function schemaProblems(value: unknown): string[] {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return [
			`must be a JSON object with the fields ${FIELD_NAMES.filter((name) => FIELDS[name].required).join(", ")}`,
		];
	}
	const record = value as Record<string, unknown>;
	const problems: string[] = [];
	for (const name of FIELD_NAMES) {
		const { required, rule } = FIELDS[name];
		if (!Object.hasOwn(record, name)) {
			if (required) problems.push(`${name}: is missing`);
		} else if (!fieldOk(name, record[name])) {
			problems.push(`${name}: ${rule}`);
		}
	}
	for (const name of Object.keys(record)) {
		if (!isFieldName(name)) {
			problems.push(`${name}: is not a field of a fax record (${FIELD_NAMES.join(", ")})`);
		}
	}
	return problems;
}

/**
 * Checks one record against everything that concerns it alone and returns
 * every problem found; `nowSeconds` bounds `received_at`.
 */
export function checkFaxRecord(value: unknown, nowSeconds: number): RecordCheck {
	const shapeOk = wholeRecord.Check(value) && !isLongSender((value as { sender?: unknown }).sender);
	const problems = shapeOk ? [] : schemaProblems(value);
	const text = (value as { received_at?: unknown } | null)?.received_at;
	let receivedAt: number | null = null;
	if (typeof text === "string") {
		receivedAt = parseOffsetDateTime(text);
		if (receivedAt === null) {
			problems.push(`received_at: ${FIELDS.received_at.rule}`);
		} else if (receivedAt > nowSeconds + MAX_FUTURE_SECONDS) {
			problems.push(
				`received_at: ${text} lies in the future (more than ${MAX_FUTURE_SECONDS / 60} minutes after ${formatUtcSeconds(nowSeconds)})`,
			);
		}
	}
	const { page_count, file_size } = (value ?? {}) as Record<string, unknown>;
	if (
		fieldChecks.page_count.Check(page_count) &&
		fieldChecks.file_size.Check(file_size) &&
		(page_count === null) !== (file_size === null)
	) {
		problems.push("page_count and file_size must both be null (not processable) or both be set");
	}
	if (shapeOk && problems.length === 0 && receivedAt !== null) {
		return { ok: true, record: { ...(value as RecordText), received_at: receivedAt } };
	}
	return { ok: false, problems };
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
