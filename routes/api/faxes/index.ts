import { Type } from "@sinclair/typebox";
import type { ListQuery, SenderFilter } from "../../../lib/db/index.ts";
import {
	FaxListSchema,
	isUnknownSenderQuery,
	OffsetDateTime,
	retentionCutoff,
	SenderText,
	senderMatchKey,
} from "../../../lib/fax/index.ts";
import { defineEndpoint, type RouteAnswer } from "../../../lib/http/index.ts";
import type { Representation } from "../../../lib/representation/index.ts";

const DEFAULT_WINDOW_SECONDS = 24 * 3600;
const DEFAULT_LIMIT = 20;
const MAX_WAIT_SECONDS = 30;

const query = Type.Object({
	limit: Type.Optional(
		Type.Transform(
			Type.String({
				pattern: "^0*(?:[1-9][0-9]?|100)$",
				errorMessage: "The limit field must be an integer between 1 and 100.",
				description: "How many faxes at most: an integer from 1 to 100, written in digits (`007` is 7).",
				// Checked as the digits of the query string, shown as the integer they mean.
				describedAs: { type: "integer", minimum: 1, maximum: 100, default: DEFAULT_LIMIT, examples: [100] },
			}),
		)
			.Decode(Number)
			.Encode(String),
	),
	since: Type.Optional(
		OffsetDateTime({
			errorMessage: "The since field must be a date-time with a time zone offset, like 2026-11-21T10:00:00Z.",
			description:
				"Only faxes received strictly later than this time, compared to the whole second. " +
				"ISO 8601 with an offset: `2026-11-21T10:00:00Z`, `2026-11-21T11:00:00+01:00` (a fraction of a " +
				"second is allowed and ignored). A date alone or a time without offset is a 422. " +
				"Send a `+` as `%2B`; UTC with `Z` avoids the question. Default: 24 hours before the request.",
			examples: ["2026-11-21T10:00:00Z"],
		}),
	),
	from: Type.Optional(
		SenderText({
			errorMessage: "The from field must not be longer than 255 characters.",
			description:
				"Only faxes of this sender: the full phone number, station ID or email address as sent, never " +
				"the masked form. Case and white space do not matter, nor one leading `+` (send it as `%2B`). " +
				"No prefix match, no wildcard. `Unknown` selects the faxes that came with no sender ID. " +
				"At most 255 characters, counted as a reader counts them (an emoji or an accented letter is one): " +
				"255 code points are always accepted, and more when some characters take several.",
			examples: ["+15551234567", "Unknown"],
			describedAs: { type: "string", maxLength: 255, examples: ["+15551234567", "Unknown"] },
		}),
	),
	wait: Type.Optional(
		Type.Transform(
			Type.String({
				pattern: "^0*(?:[1-9]|[12][0-9]|30)$",
				errorMessage: `The wait field must be an integer between 1 and ${MAX_WAIT_SECONDS}.`,
				description:
					"Seconds the server may hold the answer until there is something new: an integer from 1 to " +
					"30. With `If-None-Match`, the answer comes as soon as it differs from that tag (a 200); " +
					"without it, as soon as the list is not empty. Otherwise, after about `wait` seconds (up to " +
					"a tenth sooner, at random), it is the answer the request would get without `wait`: a 304 " +
					"for a matching `If-None-Match`, `[]` without one. Counted once against the rate limit, on " +
					"arrival, whose headers it carries. A HEAD, and a request past the server's bounds on held " +
					"requests (per client and per instance), are answered at once as if `wait` were absent.",
				describedAs: { type: "integer", minimum: 1, maximum: MAX_WAIT_SECONDS, examples: [30] },
			}),
		)
			.Decode(Number)
			.Encode(String),
	),
});

function senderFilter(from: string | undefined): SenderFilter {
	if (from === undefined) return { kind: "any" };
	if (isUnknownSenderQuery(from)) return { kind: "unknown" };
	return { kind: "key", key: senderMatchKey(from) };
}

/** The faxes a request at `now` asks for: `since` defaults to a day back, never before retention. */
function listQuery(since: number | undefined, sender: SenderFilter, limit: number, now: number): ListQuery {
	const after = Math.max(since ?? now - DEFAULT_WINDOW_SECONDS, retentionCutoff(now) - 1);
	return { after, sender, limit };
}

async function listed(body: Representation | Promise<Representation>): Promise<RouteAnswer> {
	return { status: 200, body: await body };
}

/** GET /api/faxes: newest first, never older than the retention period. */
export const route = defineEndpoint({
	query,
	doc: {
		operationId: "listFaxes",
		summary: "List test faxes",
		description:
			"The faxes received after `since` (default: the last 24 hours), newest first, phone and email " +
			"together: a bare JSON array, at most 100, with no paging. A long fax can appear after a newer " +
			"short one, so keep `since` fixed while waiting for a test. " +
			"`from=<sender>&limit=1` gives the latest fax of one sender.",
		answers: {
			200: { description: "The matching faxes, newest first; `[]` when none matches.", body: FaxListSchema },
		},
	},
	async get({ query, now, hold }, { faxes, heldLists }) {
		await faxes.settle();
		const sender = senderFilter(query.from);
		const limit = query.limit ?? DEFAULT_LIMIT;
		const answerAt = (seconds: number) => faxes.list(listQuery(query.since, sender, limit, seconds), seconds);
		if (query.wait === undefined || hold === undefined) return { status: 200, body: await answerAt(now) };
		return listed(
			heldLists.hold({
				...hold(),
				seconds: query.wait,
				sender: sender.kind === "any" ? undefined : sender.kind === "key" ? sender.key : null,
				answerAt,
			}),
		);
	},
});
