// A demo fax carries the report of a real call, whose session log has the
// clock of the day it was recorded. Seeding moves the call's clock so that
// it ends when the demo fax was received, as a real call does.
const CLOCK = /\b(\d\d):(\d\d):(\d\d)\b/g;
const DAY = 86_400;

const secondsOf = (clock: string) => {
	const [hours = 0, minutes = 0, seconds = 0] = clock.split(":").map(Number);
	return hours * 3600 + minutes * 60 + seconds;
};

const clockOf = (seconds: number) =>
	[Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
		.map((part) => String(part).padStart(2, "0"))
		.join(":");

/** The report with every clock time of its call moved so that the call ends at `endedAt` (Unix seconds, UTC). */
export function callEndingAt(report: unknown, endedAt: number): unknown {
	if (typeof report !== "object" || report === null || !("call" in report)) return report;
	const call = JSON.stringify(report.call);
	const times = [...call.matchAll(CLOCK)].map((match) => secondsOf(match[0]));
	if (times.length === 0) return report;
	const shift = (((endedAt % DAY) - Math.max(...times)) % DAY) + DAY;
	const moved = call.replace(CLOCK, (clock) => clockOf((secondsOf(clock) + shift) % DAY));
	return { ...report, call: JSON.parse(moved) };
}
