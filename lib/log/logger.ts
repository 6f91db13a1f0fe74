import pino from "pino";
import { TurnBatchedOutput } from "./turn-batched-output.ts";

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;
export type LogDestination = pino.DestinationStream;

/**
 * Standard output: one JSON object a line, or on a terminal one readable,
 * colour-coded line each. pino-pretty is loaded only for a terminal, so a
 * served process never carries it. The JSON lines of one event-loop turn go
 * out in one write: a write per line took about a fifth of the CPU of a short
 * answer (the benchmark measures the log's cost). Touching `process.stdout`
 * makes Bun set descriptor 1 non-blocking, which TurnBatchedOutput relies on
 * to never wait for a stalled reader (test/log/stalled-output.test.ts).
 */
export async function standardOutput(): Promise<LogDestination> {
	if (!process.stdout.isTTY) return new TurnBatchedOutput(1);
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
