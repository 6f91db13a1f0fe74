/**
 * /faxtest watched while a real call is received on the receivers host
 * (test:receivers): the page fetched again and again, each fetch's calls in
 * progress and listed faxes kept with the time it came; the receiver's
 * session log read back with its stamps on this host's clock, to set beside
 * the time each step first showed on the page.
 */
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { sh, until } from "./receivers.ts";
import { htmlText } from "./transmission-report.ts";

/** A call in progress as /faxtest's HTML shows it. */
export type ShownEntry = { key: string; now: string; silence: string; done: string[] };
/** A listed fax as /faxtest's HTML shows it: its slug and its outcome's words (none when all went well). */
export type ListedRow = { slug: string; outcome: string | null };
/** One fetch of /faxtest: when its page had come whole (ms, this host's clock), and what it showed. */
export type Sample = { atMs: number; calls: ShownEntry[]; faxes: ListedRow[] };

const CALL =
	/<li class="call" data-call="([^"]*)"[^>]*>[\s\S]*?<span class="now">([^<]*)<\/span> <span class="silence" role="status">([^<]*)<\/span>\n<ol class="done">((?:<li>[^<]*<\/li>)*)<\/ol>/g;
const ROW = /<li data-slug="([^"]+)">([\s\S]*?)<\/li>/g;

/** The calls in progress and the listed faxes of /faxtest's HTML, as a reader sees their words. */
export function faxtestParts(html: string): { calls: ShownEntry[]; faxes: ListedRow[] } {
	const split = html.indexOf('id="faxes"');
	if (split < 0) throw new Error("/faxtest has no list of faxes (id=faxes)");
	const calls = [...html.slice(0, split).matchAll(CALL)].map((match) => ({
		key: htmlText(match[1] ?? ""),
		now: htmlText(match[2] ?? ""),
		silence: htmlText(match[3] ?? ""),
		done: [...(match[4] ?? "").matchAll(/<li>([^<]*)<\/li>/g)].map((item) => htmlText(item[1] ?? "")),
	}));
	const faxes = [...html.slice(split).matchAll(ROW)].map((match) => {
		const outcome = /<span class="outcome">([^<]*)<\/span>/.exec(match[2] ?? "")?.[1];
		return { slug: match[1] ?? "", outcome: outcome === undefined ? null : htmlText(outcome) };
	});
	return { calls, faxes };
}

/**
 * Fetches `api`/faxtest every `everyMs` until stopped, keeping what each
 * fetch showed. A fetch that fails is kept as nothing shown, and fails the
 * caller's checks of that moment rather than the watch.
 */
export function watchFaxtest(api: string, everyMs = 100) {
	const samples: Sample[] = [];
	const failures: string[] = [];
	let watching = true;
	const running = (async () => {
		while (watching) {
			const started = Date.now();
			try {
				const html = await (await fetch(`${api}/faxtest`)).text();
				samples.push({ atMs: Date.now(), ...faxtestParts(html) });
			} catch (error) {
				failures.push(error instanceof Error ? error.message : String(error));
			}
			await Bun.sleep(Math.max(0, started + everyMs - Date.now()));
		}
	})();
	return {
		samples,
		failures,
		/** The first sample from now on that `check` holds for; throws after `timeoutMs`. */
		until(check: (sample: Sample) => boolean, timeoutMs: number): Promise<Sample> {
			const from = samples.length;
			return until(() => samples.slice(from).find(check), timeoutMs, 20);
		},
		async stop(): Promise<Sample[]> {
			watching = false;
			await running;
			return samples;
		},
	};
}

/** The entry of call `key` in a sample, if it shows one. */
export const entryOf = (sample: Sample, key: string) => sample.calls.find((call) => call.key === key);

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * The time zone HylaFAX stamps this host's session logs in: faxgetty's TZ
 * (install.sh starts it with none), else the host's /etc/localtime. Its
 * stamps are local time with no zone or year ("Nov 27 14:09:20.32").
 */
export function receiverTimeZone(): string {
	const pid = sh(["pgrep", "--ns", String(process.pid), "--nslist", "pid", "-n", "-x", "faxgetty"]).trim();
	const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
	const tz = environ.find((entry) => entry.startsWith("TZ="))?.slice(3);
	// glibc: TZ empty is UTC; ":NAME" and a path under zoneinfo name a zone file.
	if (tz === "") return "UTC";
	const file = tz === undefined ? localtimeZone() : tz.replace(/^:/, "");
	const zone = file.replace(/^.*\/zoneinfo\//, "");
	// A POSIX rule ("EST5EDT,M3.2.0,M11.1.0") is not a zone name Intl knows: say so rather than guess.
	new Intl.DateTimeFormat("en", { timeZone: zone });
	return zone;
}

function localtimeZone(): string {
	if (!existsSync("/etc/localtime")) return "UTC";
	try {
		return readlinkSync("/etc/localtime");
	} catch {
		// A copy, not a link: Debian names it in /etc/timezone too.
		return readFileSync("/etc/timezone", "utf8").trim();
	}
}

/** How far `timeZone`'s wall clock is ahead of UTC at `ms`. */
function zoneOffsetMs(ms: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat("en-US", {
		timeZone,
		hourCycle: "h23",
		year: "numeric",
		month: "numeric",
		day: "numeric",
		hour: "numeric",
		minute: "numeric",
		second: "numeric",
	}).formatToParts(ms);
	const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value);
	const wall = Date.UTC(
		part("year"),
		part("month") - 1,
		part("day"),
		part("hour"),
		part("minute"),
		part("second"),
	);
	return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * A session log's stamp ("Nov 27 14:09:20.32", centiseconds, the wall clock
 * of `timeZone`) as milliseconds since the epoch: of the year that puts it
 * nearest to `nearMs` (a call logged on 31 December read on 1 January).
 */
export function logStampMs(stamp: string, timeZone: string, nearMs = Date.now()): number {
	const match = /^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d)\.(\d\d)$/.exec(stamp);
	const month = MONTHS.indexOf(match?.[1] ?? "");
	if (match === null || month < 0) throw new Error(`not a session log stamp: ${stamp}`);
	const [day, hour, minute, second, centi] = match.slice(2).map(Number) as [
		number,
		number,
		number,
		number,
		number,
	];
	const year = new Date(nearMs).getUTCFullYear();
	const times = [year - 1, year, year + 1].map((candidate) => {
		const wall = Date.UTC(candidate, month, day, hour, minute, second, centi * 10);
		// Twice: the offset at the guess, then at the time it gives (a change of offset between them).
		const guess = wall - zoneOffsetMs(wall, timeZone);
		return wall - zoneOffsetMs(guess, timeZone);
	});
	return times.reduce((best, time) => (Math.abs(time - nearMs) < Math.abs(best - nearMs) ? time : best));
}

/** A session log line's stamp and the rest of it. */
const LINE = /^(\w{3} +\d+ \d\d:\d\d:\d\d\.\d\d): \[ *\d+\]: (.*)$/;

/** A line of a session log: its stamp as HylaFAX wrote it and on this host's clock (ms), and its text. */
export type LogLine = { stamp: string; ms: number; text: string };

function logLinesOf(log: string, timeZone: string): LogLine[] {
	return log.split("\n").flatMap((line) => {
		const match = LINE.exec(line);
		if (match === null) return [];
		const stamp = match[1] ?? "";
		return [{ stamp, ms: logStampMs(stamp, timeZone), text: match[2] ?? "" }];
	});
}

/** The first line of `log` whose text (past the stamp and process id) matches `pattern`. */
export function firstLine(log: string, pattern: RegExp, timeZone: string): LogLine | null {
	return logLinesOf(log, timeZone).find((line) => pattern.test(line.text)) ?? null;
}

/**
 * The first line of each page, by the receiver's log: its first ECM frame
 * ("RECV received frame number") or, without ECM, "RECV: begin page"; a page
 * ends with HylaFAX's "page N in" line, and what comes after is the next page's.
 */
export function pageStarts(log: string, timeZone: string): Map<number, LogLine> {
	const starts = new Map<number, LogLine>();
	let page = 1;
	for (const line of logLinesOf(log, timeZone)) {
		const done = /^RECV FAX \(\d+\): from .*, page (\d+) in /.exec(line.text);
		if (done) page = Number(done[1]) + 1;
		else if (/^(?:RECV received frame number|RECV: begin page)/.test(line.text) && !starts.has(page))
			starts.set(page, line);
	}
	return starts;
}
