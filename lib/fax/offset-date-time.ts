import { type StringOptions, Type } from "@sinclair/typebox";
import "./formats.ts";
import { formatUtcSeconds, OFFSET_DATE_TIME_PATTERN, parseOffsetDateTime } from "./time.ts";

/**
 * A string schema whose decoded value is Unix seconds: on the wire an ISO 8601
 * date-time with an offset (its pattern says exactly which to readers of the
 * schema), decoded to seconds by parsing the text once more. A text the parser
 * refuses makes the decode throw; callers turn that into their own message.
 * No `format: date-time`: RFC 3339 admits a second 60 and refuses `+0200`,
 * the other way round from this service.
 */
export function OffsetDateTime(options: StringOptions & { errorMessage?: string } = {}) {
	return Type.Transform(Type.String({ pattern: OFFSET_DATE_TIME_PATTERN, ...options }))
		.Decode((text) => {
			const seconds = parseOffsetDateTime(text);
			if (seconds === null) throw new Error("not an ISO 8601 date-time with an offset");
			return seconds;
		})
		.Encode(formatUtcSeconds);
}
