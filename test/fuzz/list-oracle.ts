import type { Expected } from "./answers.ts";
import {
	CATALOGUE,
	type CatalogueFax,
	DAY,
	expectedList,
	isPublic,
	type SenderSelection,
} from "./catalogue.ts";

/**
 * What DECISIONS.md says `GET /api/faxes?<query>` answers over the catalogue,
 * written apart from the service: the raw query string is read as a browser
 * reads it (WHATWG URLSearchParams), then the contract's rules decide.
 */

export const MESSAGES = {
	limit: "The limit field must be an integer between 1 and 100.",
	since: "The since field must be a date-time with a time zone offset, like 2026-11-21T10:00:00Z.",
	from: "The from field must not be longer than 255 characters.",
} as const;
const single = (name: string) => `The ${name} field must be a single value.`;
const NAMES = ["limit", "since", "from"] as const;
type Name = (typeof NAMES)[number];

const SINCE =
	/^(?<year>[0-9]{4})-(?<month>[0-9]{2})-(?<day>[0-9]{2})T(?<hour>[0-9]{2}):(?<minute>[0-9]{2}):(?<second>[0-9]{2})(?:\.[0-9]+)?(?:Z|(?<sign>[+-])(?<oh>[0-9]{2}):?(?<om>[0-9]{2}))$/;

/** Unix seconds of a `since` text, or null when DECISIONS.md's time rules refuse it. */
export function sinceSeconds(text: string): number | null {
	const parts = SINCE.exec(text)?.groups;
	if (parts === undefined) return null;
	const [year, month, day, hour, minute, second] = [
		parts.year,
		parts.month,
		parts.day,
		parts.hour,
		parts.minute,
		parts.second,
	].map(Number) as [number, number, number, number, number, number];
	const offsetHours = Number(parts.oh ?? 0);
	const offsetMinutes = Number(parts.om ?? 0);
	if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
	// A calendar date is one that survives a round trip through the calendar.
	const date = new Date(0);
	date.setUTCFullYear(year, month - 1, day);
	if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
		return null;
	const offset = (parts.sign === "-" ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
	return Math.floor(date.getTime() / 1000) + hour * 3600 + minute * 60 + second - offset;
}

function isLimit(text: string): boolean {
	return /^[0-9]+$/.test(text) && BigInt(text) >= 1n && BigInt(text) <= 100n;
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function graphemeCount(text: string): number {
	let count = 0;
	for (const _ of GRAPHEMES.segment(text)) count++;
	return count;
}

/** A `from` value as the match rule reads it: Unicode compatibility forms folded, invisible characters gone. */
function folded(text: string): string {
	return text.normalize("NFKC").replace(/\p{Cf}/gu, "");
}

/**
 * Of a value with an at-sign only the address counts (docs/decisions.md):
 * the local part runs left from the last at-sign to white space or a bracket,
 * the domain right over letters, digits, dots and hyphens.
 */
function addressIn(text: string): string {
	const at = text.lastIndexOf("@");
	const local =
		text
			.slice(0, at)
			.trimEnd()
			.split(/[\s<>()[\],;:]/u)
			.pop() ?? "";
	const domain = /^[\p{L}\p{M}\p{N}._-]*/u.exec(text.slice(at + 1).trimStart())?.[0] ?? "";
	return `${local}@${domain.replace(/\.+$/, "")}`;
}

export function senderSelection(from: string | undefined): SenderSelection {
	if (from === undefined) return { kind: "any" };
	const text = folded(from);
	const sender = text.includes("@") ? addressIn(text) : text;
	const key = sender.toLowerCase().replace(/\s/g, "").replace(/^\+/, "");
	// `Unknown` is read by its key, as a sender is (docs/decisions.md).
	return key === "unknown" ? { kind: "unknown" } : { kind: "key", key };
}

/** The answer of the list endpoint to a raw query string (without `?`) at `now`. */
export function expectedListAnswer(search: string, now: number): Expected {
	const values = new Map<Name, string>();
	const given = new Map<Name, number>();
	const multiple = new Set<Name>();
	for (const [key, value] of new URLSearchParams(search)) {
		const bracket = key.indexOf("[");
		const name = (bracket === -1 ? key : key.slice(0, bracket)) as Name;
		if (!NAMES.includes(name)) continue;
		given.set(name, (given.get(name) ?? 0) + 1);
		// Repeated keys are invalid, empty values included; a single empty value is absent.
		if (bracket !== -1 || (given.get(name) ?? 0) > 1) multiple.add(name);
		if (value !== "") values.set(name, value);
	}
	const errors: Record<string, string[]> = {};
	for (const name of NAMES) {
		const value = values.get(name);
		if (multiple.has(name)) errors[name] = [single(name)];
		else if (value === undefined) continue;
		else if (name === "limit" && !isLimit(value)) errors[name] = [MESSAGES.limit];
		else if (name === "since" && sinceSeconds(value) === null) errors[name] = [MESSAGES.since];
		else if (name === "from" && graphemeCount(value) > 255) errors[name] = [MESSAGES.from];
	}
	if (Object.keys(errors).length > 0) return { kind: "invalid", errors };
	const since = values.get("since");
	return {
		kind: "list",
		faxes: expectedList(
			{
				after: since === undefined ? now - DAY : (sinceSeconds(since) as number),
				limit: Number(values.get("limit") ?? 20),
				sender: senderSelection(values.get("from")),
			},
			now,
		),
	};
}

/** The answer of `GET /api/faxes/{slug}` for a slug as the path decodes to. */
export function expectedFaxAnswer(slug: string, now: number): Expected {
	const fax: CatalogueFax | undefined = CATALOGUE.find((candidate) => candidate.slug === slug);
	if (fax === undefined) return { kind: "missing" };
	return isPublic(fax, now) ? { kind: "fax", fax } : { kind: "gone" };
}
