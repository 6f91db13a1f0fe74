import { Type } from "@sinclair/typebox";
import type { SenderFilter } from "../../../lib/db/index.ts";
import {
	isUnknownSenderQuery,
	OffsetDateTime,
	retentionCutoff,
	SenderText,
	senderMatchKey,
} from "../../../lib/fax/index.ts";
import { defineEndpoint } from "../../../lib/http/index.ts";

const DEFAULT_WINDOW_SECONDS = 24 * 3600;
const DEFAULT_LIMIT = 20;

const query = Type.Object({
	limit: Type.Optional(
		Type.Transform(
			Type.String({
				pattern: "^0*(?:[1-9][0-9]?|100)$",
				errorMessage: "The limit field must be an integer between 1 and 100.",
			}),
		)
			.Decode(Number)
			.Encode(String),
	),
	since: Type.Optional(
		OffsetDateTime({
			errorMessage: "The since field must be a date-time with a time zone offset, like 2026-11-21T10:00:00Z.",
		}),
	),
	from: Type.Optional(SenderText({ errorMessage: "The from field must not be longer than 255 characters." })),
});

function senderFilter(from: string | undefined): SenderFilter {
	if (from === undefined) return { kind: "any" };
	if (isUnknownSenderQuery(from)) return { kind: "unknown" };
	return { kind: "key", key: senderMatchKey(from) };
}

/** GET /api/faxes: newest first, never older than the retention period. */
export const route = defineEndpoint({
	query,
	get({ query, now }, { faxes }) {
		const since = query.since ?? now - DEFAULT_WINDOW_SECONDS;
		const after = Math.max(since, retentionCutoff(now) - 1);
		const sender = senderFilter(query.from);
		return { status: 200, body: faxes.list({ after, sender, limit: query.limit ?? DEFAULT_LIMIT }, now) };
	},
});
