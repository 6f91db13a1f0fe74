// The fax domain: what a fax is, how it shows publicly, its times and slugs.
// It depends on nothing else of this project.
export { createFaxJson } from "./fax-json.ts";
export type { FaxRow } from "./fax-row.ts";
export { type Fax, FaxListSchema, FaxSchema } from "./fax-schema.ts";
export { OffsetDateTime } from "./offset-date-time.ts";
export { createFaxPresenter, type PublicUrls } from "./present-fax.ts";
export { retentionCutoff } from "./retention.ts";
export { isUnknownSenderQuery, maskSender, senderMatchKey, storedSenderKey } from "./sender.ts";
export { cutSender, MAX_SENDER_LENGTH, SenderText } from "./sender-length.ts";
export { isSlugShape, newSlug, newSlugsInOrder, SLUG_PATTERN } from "./slug.ts";
export { formatUtcSeconds, OFFSET_DATE_TIME_PATTERN, parseOffsetDateTime } from "./time.ts";
