import { type Static, type TSchema, Type } from "@sinclair/typebox";
import "./formats.ts";

const Nullable = <T extends TSchema>(schema: T, description: string) =>
	Type.Union([schema, Type.Null()], { description });

const NOT_PROCESSED = "`null` when the fax could not be processed.";

/** The fax resource: the list element and the single answer alike. Its descriptions are the API's. */
export const FaxSchema = Type.Object(
	{
		slug: Type.String({
			pattern: "^fax_[A-Za-z0-9]+$",
			description:
				"The fax's ID: `fax_` followed by letters and digits. Use it in `GET /api/faxes/{slug}`. " +
				"It is never reused, also after the fax is removed.",
			examples: ["fax_Ab3dE5gH7jK9"],
		}),
		source: Type.Union([Type.Literal("phone"), Type.Literal("email")], {
			description: "`phone` for a fax received by phone; `email` for a scan-to-email or Internet-fax test.",
		}),
		from: Nullable(
			Type.String({ examples: ["+155*****567", "j***@e***.uk", "ACME 42"] }),
			"The sender, masked; the full sender never leaves the service. " +
				"An email address shows as its first character, `***@`, the first character of the domain, `***.` " +
				"and the domain's last label (`John.Doe@Example.co.uk` → `j***@e***.uk`). " +
				"A number or station ID of 6 digits or more loses white space and the 5 digits before its last 3 " +
				"(`+1 555 123 4567` → `+155*****567`). A station ID of fewer than 6 digits shows as it is. " +
				"`null` when the fax came with no sender ID (shown as Unknown on the test site).",
		),
		received_at: Type.String({
			format: "date-time",
			pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$",
			description:
				"When the fax arrived: UTC, whole seconds, with `Z`. The time that `since` compares against.",
			examples: ["2026-11-21T10:02:17Z"],
		}),
		page_count: Nullable(Type.Integer({ minimum: 1 }), `Number of pages. ${NOT_PROCESSED}`),
		file_size: Nullable(Type.Integer({ minimum: 0 }), `Size of the PDF in bytes. ${NOT_PROCESSED}`),
		pdf_url: Nullable(
			Type.String({ format: "uri", pattern: "^https?://" }),
			`Address of the PDF (\`<files>/faxes/<slug>.pdf\`). ${NOT_PROCESSED}`,
		),
		thumbnail_url: Nullable(
			Type.String({ format: "uri", pattern: "^https?://" }),
			`Address of a JPEG image of the first page, 600 pixels wide (300 before 2026-11-26) (\`<files>/faxes/<slug>-thumb.jpg\`). ${NOT_PROCESSED}`,
		),
		view_url: Type.String({
			format: "uri",
			pattern: "^https?://",
			description: "Address of the fax's page on the test site (`<site>/faxtest/<slug>`).",
		}),
	},
	{
		additionalProperties: false,
		description:
			"A test fax. Every field is always present; some may be `null`. A fax never changes once listed.",
	},
);

export type Fax = Static<typeof FaxSchema>;

export const FaxListSchema = Type.Array(FaxSchema, {
	maxItems: 100,
	description: "Faxes, newest first by `received_at`; `[]` when none matches.",
});
