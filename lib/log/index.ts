// The structured log: one JSON object a line on standard output, through pino.

export { type AccessFields, accessLineWriter } from "./access-line.ts";
export { createLogger, type LogDestination, type Logger, type LogLevel, standardOutput } from "./logger.ts";
export { KEPT_LINES_RESERVE_BYTES, LOG_BUFFER_BYTES, TurnBatchedOutput } from "./turn-batched-output.ts";
