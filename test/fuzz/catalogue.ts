import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import type { FaxRow } from "../../lib/fax/index.ts";
import { NOW_SECONDS } from "../../testkit/fixtures.ts";

/**
 * The faxes the request fuzzers run against, with what the contract says of
 * each: its public form, the key a `from=` finds it by, and the text of its
 * raw sender that must never be in an answer. The public forms are written
 * out by hand from DECISIONS.md, not computed by the service's code.
 */
export interface CatalogueFax {
	slug: string;
	source: "phone" | "email";
	sender: string | null;
	/** `from` as the API must show it. */
	masked: string | null;
	/** DECISIONS.md's match key: lower case, no white space, no leading `+`; null without a sender. */
	key: string | null;
	/** Unix seconds. */
	receivedAt: number;
	processed: boolean;
	/** Removed on request: 410, never listed. */
	removed: boolean;
	/** Pieces of the raw sender no answer may contain. */
	secrets: string[];
}

export const CDN_BASE = "https://cdn.test.example";
export const SITE_BASE = "https://site.test.example";
export const RETENTION_SECONDS = 30 * 86_400;
export const DAY = 86_400;

interface Sender {
	raw: string | null;
	masked: string | null;
	key: string | null;
	secrets: string[];
}

export const SENDERS: Sender[] = [
	{ raw: "+1 555 123 4567", masked: "+155*****567", key: "15551234567", secrets: ["5123", "1234", "123 4"] },
	{ raw: "15551234567", masked: "155*****567", key: "15551234567", secrets: ["5123", "1234"] },
	{ raw: "+49 30 12345678", masked: "+4930*****678", key: "493012345678", secrets: ["12345", "2345"] },
	{ raw: "123456", masked: "*****456", key: "123456", secrets: ["123456", "1234"] },
	{ raw: "FAX 1234567", masked: "FAX*****567", key: "fax1234567", secrets: ["1234", "2345"] },
	{
		raw: "John.Doe@Example.co.uk",
		masked: "j***@e***.uk",
		key: "john.doe@example.co.uk",
		secrets: ["john", "ohn.", "doe@", "example.co"],
	},
	{
		raw: "Secret Person <secret.person@example.org>",
		masked: "s***@e***.org",
		key: "secret.person@example.org",
		secrets: ["secret", "person", "example.org"],
	},
	{ raw: "ACME 42", masked: "ACME 42", key: "acme42", secrets: [] },
	{ raw: "acme42", masked: "acme42", key: "acme42", secrets: [] },
	{ raw: null, masked: null, key: null, secrets: [] },
	{ raw: "   ", masked: null, key: null, secrets: [] },
];

// Seconds before the pinned request time: ties, both sides of the default
// 24 hours and of the 30 days, the 25 hours the service keeps in memory, and
// one fax from a device clock running ahead.
const AGES = [
	-30,
	0,
	1,
	60,
	60,
	60,
	3_599,
	3_600,
	7_200,
	DAY - 1,
	DAY,
	DAY,
	DAY + 1,
	25 * 3_600 - 1,
	25 * 3_600,
	25 * 3_600 + 1,
	2 * DAY,
	7 * DAY,
	7 * DAY,
	29 * DAY,
	RETENTION_SECONDS - 1,
	RETENTION_SECONDS,
	RETENTION_SECONDS + 1,
	40 * DAY,
	400 * DAY,
];

/** Every sender at several ages; every seventh fax removed, every fifth not processable. In insertion order. */
export const CATALOGUE: CatalogueFax[] = AGES.flatMap((age, ageIndex) =>
	SENDERS.filter((_, senderIndex) => (senderIndex + ageIndex) % 3 === 0).map((sender, senderIndex) => {
		const number = ageIndex * SENDERS.length + senderIndex;
		return {
			slug: `fax_Cat${String(number).padStart(3, "0")}`,
			source: number % 2 === 0 ? "phone" : "email",
			sender: sender.raw,
			masked: sender.masked,
			key: sender.key,
			receivedAt: NOW_SECONDS - age,
			processed: number % 5 !== 0,
			removed: number % 7 === 3,
			secrets: sender.secrets,
		} satisfies CatalogueFax;
	}),
);

/** The row a catalogue fax is stored as. */
export function storedRow(fax: CatalogueFax): FaxRow {
	return {
		slug: fax.slug,
		source: fax.source,
		sender: fax.sender,
		received_at: fax.receivedAt,
		page_count: fax.processed ? 2 : null,
		file_size: fax.processed ? 98_760 : null,
	};
}

/** Inserts the catalogue, in its order, into the server's database. */
export async function insertCatalogue(databasePath: string): Promise<void> {
	const db = openDatabase(databasePath);
	const store = new FaxStore(db);
	for (const fax of CATALOGUE) {
		await store.insert(storedRow(fax));
	}
	for (const fax of CATALOGUE) if (fax.removed) await store.remove(fax.slug, NOW_SECONDS - 10);
	db.close();
}

/** The fax object the API must answer for a catalogue fax. */
export function publicFax(fax: CatalogueFax): Record<string, unknown> {
	return {
		slug: fax.slug,
		source: fax.source,
		from: fax.masked,
		received_at: `${new Date(fax.receivedAt * 1000).toISOString().slice(0, 19)}Z`,
		page_count: fax.processed ? 2 : null,
		file_size: fax.processed ? 98_760 : null,
		pdf_url: fax.processed ? `${CDN_BASE}/faxes/${fax.slug}.pdf` : null,
		thumbnail_url: fax.processed ? `${CDN_BASE}/faxes/${fax.slug}-thumb.jpg` : null,
		view_url: `${SITE_BASE}/faxtest/${fax.slug}`,
	};
}

/** Whether the API shows this fax at `now`: not removed, not older than 30 days. */
export function isPublic(fax: CatalogueFax, now: number): boolean {
	return !fax.removed && fax.receivedAt >= now - RETENTION_SECONDS;
}

/** What `from=` selects, as DECISIONS.md reads a query value. */
export type SenderSelection = { kind: "any" } | { kind: "unknown" } | { kind: "key"; key: string };

export interface ListQuery {
	after: number;
	limit: number;
	sender: SenderSelection;
}

/** DECISIONS.md's list rules over faxes in insertion order: newest first, ties newest inserted first. */
export function expectedList(
	query: ListQuery,
	now: number,
	faxes: CatalogueFax[] = CATALOGUE,
): CatalogueFax[] {
	const { after, limit, sender } = query;
	const matches = (fax: CatalogueFax) =>
		sender.kind === "any" ? true : sender.kind === "unknown" ? fax.key === null : fax.key === sender.key;
	return faxes
		.map((fax, index) => ({ fax, index }))
		.filter(({ fax }) => isPublic(fax, now) && fax.receivedAt > after && matches(fax))
		.sort((a, b) => b.fax.receivedAt - a.fax.receivedAt || b.index - a.index)
		.slice(0, limit)
		.map(({ fax }) => fax);
}

/** Every piece of a raw sender no answer may show. */
export const SECRETS: string[] = [...new Set(SENDERS.flatMap((sender) => sender.secrets))];
