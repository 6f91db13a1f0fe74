import { Type } from "@sinclair/typebox";
import { formatUtcSeconds, parseOffsetDateTime } from "./time.ts";

/**
 * A string schema whose decoded value is Unix seconds: the text is parsed once,
 * while decoding, and a text that is no ISO 8601 date-time with an offset makes
 * the decode throw. Callers turn that throw into their own message.
 */
export function OffsetDateTime(options: { errorMessage?: string; description?: string } = {}) {
	return Type.Transform(Type.String(options))
		.Decode((text) => {
			const seconds = parseOffsetDateTime(text);
			if (seconds === null) throw new Error("not an ISO 8601 date-time with an offset");
			return seconds;
		})
		.Encode(formatUtcSeconds);
}
