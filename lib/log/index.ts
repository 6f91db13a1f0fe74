// The structured log: one JSON object a line on standard output, through pino.
export { createLogger, type LogDestination, type Logger, type LogLevel, standardOutput } from "./logger.ts";
