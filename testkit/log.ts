import { createLogger, type Logger, type LogLevel } from "../lib/log/index.ts";

/** One parsed log line. */
export type LogLine = Record<string, unknown> & { level: string; time: string; msg?: string };

/** A logger whose lines land parsed in `lines`, for tests that look at what was logged. */
export function captureLog(
	level: LogLevel = "info",
	lines: LogLine[] = [],
): { logger: Logger; lines: LogLine[] } {
	const logger = createLogger(level, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
	return { logger, lines };
}

/** A logger that drops every line. */
export function silentLog(): Logger {
	return createLogger("silent", { write: () => {} });
}

/** The lines other than access lines, as `message (reason)` where a reason was given. */
export function eventsOf(lines: LogLine[]): string[] {
	return lines
		.filter((line) => line.msg !== "request")
		.map((line) => (line.reason === undefined ? String(line.msg) : `${line.msg} (${line.reason})`));
}
