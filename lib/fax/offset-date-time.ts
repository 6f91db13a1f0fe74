import { type StringOptions, Type } from "@sinclair/typebox";
import "./formats.ts";
import { formatUtcSeconds, OFFSET_DATE_TIME_PATTERN, parseOffsetDateTime } from "./time.ts";

/**
 * A string schema whose decoded value is Unix seconds: on the wire an ISO 8601
 * date-time with an offset (its format and pattern say so to readers of the
 * schema), decoded to seconds by parsing the text once more. A text the parser
 * refuses makes the decode throw; callers turn that into their own message.
 */
export function OffsetDateTime(options: StringOptions & { errorMessage?: string } = {}) {
	return Type.Transform(Type.String({ format: "date-time", pattern: OFFSET_DATE_TIME_PATTERN, ...options }))
		.Decode((text) => {
			const seconds = parseOffsetDateTime(text);
			if (seconds === null) throw new Error("not an ISO 8601 date-time with an offset");
			return seconds;
		})
		.Encode(formatUtcSeconds);
}
