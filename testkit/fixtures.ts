/**
 * The pinned request time of in-process API tests: the whole second at which the
 * test process loaded this module. It follows the real clock because servers and
 * CLI commands that tests spawn read the real clock, and the fixtures built from
 * it must stay inside their 24-hour window and 30-day retention on any date.
 */
export const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
export const NOW_SECONDS = NOW_MS / 1000;
export const fixedClock = () => NOW_MS;

/** `YYYY-MM-DDTHH:MM:SSZ`, `seconds` before the pinned time (so relative to the real clock). */
export function ago(seconds: number): string {
	return `${new Date(NOW_MS - seconds * 1000).toISOString().slice(0, 19)}Z`;
}

export interface RecordOverrides {
	slug?: string;
	source?: "phone" | "email";
	sender?: string | null;
	received_at?: string;
	page_count?: number | null;
	file_size?: number | null;
	removed?: boolean;
}

/** An import record of a processed phone fax received a minute ago, with overrides. */
export function faxRecord(overrides: RecordOverrides = {}) {
	return {
		source: "phone",
		sender: "+1 555 123 4567",
		received_at: ago(60),
		page_count: 1,
		file_size: 1000,
		...overrides,
	};
}

/** The time of `ago(seconds)` written in the UTC offset `offset` (`+02:00`, `-0500`), as a client there writes it. */
export function agoIn(seconds: number, offset: string): string {
	const [, sign, hours, minutes] = /^([+-])(\d\d):?(\d\d)$/.exec(offset) ?? [];
	const shift = (sign === "-" ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60;
	return `${new Date(NOW_MS + (shift - seconds) * 1000).toISOString().slice(0, 19)}${offset}`;
}
