/** Every JSON answer carries this exact type (docs/API.md "Basics"). */
export const JSON_TYPE = "application/json; charset=utf-8";

/** The body of a 404 and a 410. */
export const EMPTY_MESSAGE = '{"message":""}';

/** The texts of the error answers with a message. */
export const ERROR_MESSAGES = {
	tooMany: "Too Many Attempts.",
	badHost: "The Host header must name one host, with an optional port.",
	methodNotAllowed: "The method is not allowed. Use GET or HEAD.",
	serverError: "Server Error.",
	unavailable: "Service Unavailable.",
} as const;

/** `{"message": <text>}` as JSON text. */
export const messageJson = (text: string) => JSON.stringify({ message: text });
