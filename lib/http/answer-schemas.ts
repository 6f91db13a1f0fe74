import { type TSchema, Type } from "@sinclair/typebox";

/** The JSON body `{"message": <text>}` with exactly this text. */
export function messageBody(text: string, description: string): TSchema {
	return Type.Object({ message: Type.Literal(text) }, { additionalProperties: false, description });
}

/** Headers every answer carries, on every path. */
export const ANSWER_HEADERS = {
	"Cache-Control": Type.Literal("no-store, private", {
		description: "Every answer, errors included: nothing may be stored by a cache.",
	}),
};

/** Headers of an endpoint's 200 and 304: which content it is, and what chose its form. */
export const REPRESENTATION_HEADERS = {
	ETag: Type.String({
		pattern: '^W/"[A-Za-z0-9_-]{22}"$',
		description:
			"A weak validator of this answer's content, derived from the content alone: the same answer has the " +
			"same ETag on every instance and in every encoding, and another answer (a new fax, a removal, an " +
			"expiry) has another. Send it back as `If-None-Match` to get a 304 while nothing changed.",
		examples: ['W/"Xq3Yb1dGm0vT2sA9kLw4hE"'],
	}),
	Vary: Type.Literal("Accept-Encoding", {
		description: "The body's encoding follows the request's `Accept-Encoding`.",
	}),
};

/** Present when the body is compressed. */
export const ENCODING_HEADERS = {
	"Content-Encoding": Type.Union([Type.Literal("br"), Type.Literal("gzip")], {
		description:
			"`br` or `gzip` when the request's `Accept-Encoding` accepts it and the body is 1 KB or more; " +
			"absent for an uncompressed body. The decoded body is byte for byte the uncompressed one.",
	}),
};

/** The 403's words: what to do, and where the API is described, on the server that refused. */
export const FORBIDDEN_TEXT = "Forbidden: set a User-Agent of your own. The API is described at /docs.\n";

/** The plain-text body of the 403. */
export const FORBIDDEN_BODY = Type.Literal(FORBIDDEN_TEXT, {
	description: "A short text that says what to do (set a `User-Agent` of your own) and names `/docs`.",
});
