// Strict ISO 8601 date-time with a mandatory offset; the fraction is allowed but
// ignored because every comparison in this service is to the whole second.
const OFFSET_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

// The same forms with every range and the calendar spelled out, leap years
// included, so a JSON Schema pattern admits exactly what parseOffsetDateTime
// reads: no second 60, no hour 24, no offset past ±23:59, no February 30.
const LONG_MONTH_DAY = "(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])";
const SHORT_MONTH_DAY = "(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)";
const FEBRUARY_DAY = "02-(?:0[1-9]|1[0-9]|2[0-8])";
const LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)";
const DATE = `(?:[0-9]{4}-(?:${LONG_MONTH_DAY}|${SHORT_MONTH_DAY}|${FEBRUARY_DAY})|${LEAP_YEAR}-02-29)`;
const TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?";
const OFFSET = "(?:Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])";

/** Exactly the texts `parseOffsetDateTime` reads, as a JSON Schema pattern (a property test holds them equal). */
export const OFFSET_DATE_TIME_PATTERN = `^${DATE}T${TIME}${OFFSET}$`;

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
