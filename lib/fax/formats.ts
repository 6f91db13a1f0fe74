import { FormatRegistry } from "@sinclair/typebox";
import { parseOffsetDateTime } from "./time.ts";

// TypeBox refuses every value of a format it does not know, so the formats the
// public schemas declare (and the API description shows) are registered here,
// checked as this service reads them: a date-time must carry an offset.
if (!FormatRegistry.Has("date-time")) {
	FormatRegistry.Set("date-time", (value) => parseOffsetDateTime(value) !== null);
}
if (!FormatRegistry.Has("uri")) {
	FormatRegistry.Set("uri", (value) => URL.canParse(value));
}
