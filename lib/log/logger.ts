import pino from "pino";

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;
export type LogDestination = pino.DestinationStream;

/**
 * Standard output: one JSON object a line, or on a terminal one readable,
 * colour-coded line each. pino-pretty is loaded only for a terminal, so a
 * served process never carries it. A write per line keeps the last lines
 * before a crash; the benchmark measures what that costs.
 */
export async function standardOutput(): Promise<LogDestination> {
	if (!process.stdout.isTTY) return pino.destination({ dest: 1, sync: true });
	const { default: pretty } = await import("pino-pretty");
	return pretty({ colorize: true, singleLine: true, sync: true, translateTime: "SYS:HH:MM:ss.l" });
}

/** The one logger of a process: access lines, start-up, shutdown, Redis switches, purges, errors. */
export function createLogger(level: LogLevel, destination: LogDestination): Logger {
	return pino(
		{
			level,
			// The container runtime and the log shipper name the host and process.
			base: undefined,
			timestamp: pino.stdTimeFunctions.isoTime,
			formatters: { level: (label) => ({ level: label }) },
		},
		destination,
	);
}
