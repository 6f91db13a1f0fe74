// Strict ISO 8601 date-time with a mandatory offset; the fraction is allowed but
// ignored because every comparison in this service is to the whole second.
const OFFSET_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

/** The text forms `parseOffsetDateTime` reads, as a JSON Schema pattern; the calendar is checked on top. */
export const OFFSET_DATE_TIME_PATTERN = OFFSET_DATE_TIME.source;

function daysInMonth(year: number, month: number): number {
	if (month === 2) return isLeapYear(year) ? 29 : 28;
	return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
	return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Parses an ISO 8601 date-time with offset to Unix seconds (floored), or null. */
export function parseOffsetDateTime(text: string): number | null {
	const match = OFFSET_DATE_TIME.exec(text);
	if (!match) return null;
	const [, y, mo, d, h, mi, s, zulu, sign, oh, om] = match;
	const year = Number(y);
	const month = Number(mo);
	const day = Number(d);
	const hour = Number(h);
	const minute = Number(mi);
	const second = Number(s);
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
	if (hour > 23 || minute > 59 || second > 59) return null;
	let offsetMinutes = 0;
	if (!zulu) {
		const offsetHours = Number(oh);
		const offsetMins = Number(om);
		if (offsetHours > 23 || offsetMins > 59) return null;
		offsetMinutes = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
	}
	const utc = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
	utc.setUTCFullYear(year);
	return Math.floor(utc.getTime() / 1000) - offsetMinutes * 60;
}

/** Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`. */
export function formatUtcSeconds(seconds: number): string {
	return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}
