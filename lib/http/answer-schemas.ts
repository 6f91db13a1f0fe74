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

/** The 403's words: what to do, and where the API is described, on the server that refused. */
export const FORBIDDEN_TEXT = "Forbidden: set a User-Agent of your own. The API is described at /docs.\n";

/** The plain-text body of the 403. */
export const FORBIDDEN_BODY = Type.Literal(FORBIDDEN_TEXT, {
	description: "A short text that says what to do (set a `User-Agent` of your own) and names `/docs`.",
});
