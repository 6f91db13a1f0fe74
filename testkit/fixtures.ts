/** The pinned request time of API tests: 2026-11-22T12:00:00Z. */
export const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
export const NOW_SECONDS = NOW_MS / 1000;
export const fixedClock = () => NOW_MS;

/** `YYYY-MM-DDTHH:MM:SSZ`, `seconds` before the pinned time. */
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
