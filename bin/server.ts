import { ConfigError, loadConfig } from "../lib/config.ts";
import { DatabaseOpenError } from "../lib/db/index.ts";
import { createLogger, standardOutput, TurnBatchedOutput } from "../lib/log/index.ts";
import { StartupError, startServer } from "../lib/server.ts";
import { completeTracingChannel } from "../lib/util/index.ts";

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

// Start-up failures an operator can fix get one line naming the setting and an
// exit code, not a stack trace: 2 for a bad value, 1 for the disk or the network.
// Standard error carries only these lines and the address once listening;
// everything else is the structured log on standard output.
completeTracingChannel();
try {
	const config = loadConfig(process.env);
	const output = await standardOutput();
	const logger = createLogger(config.logLevel, output);
	const server = await startServer(config, {
		logger,
		logOutput: output instanceof TurnBatchedOutput ? output : undefined,
	});
	let stopping = false;
	const shutdown = (signal: keyof typeof SIGNAL_NUMBERS) => {
		if (stopping) {
			// An operator who asks twice wants the process gone, answers or not.
			logger.warn({ signal }, "shutdown: second signal, exiting without draining");
			process.exit(128 + SIGNAL_NUMBERS[signal]);
		}
		stopping = true;
		void server.stop().then((drained) => {
			const fields = {
				signal,
				in_flight: drained.inFlight,
				cut: drained.cut,
				duration_ms: Math.round(drained.durationMs),
			};
			if (drained.cut === 0) {
				logger.info(fields, "shutdown: every accepted request answered; Redis and the database closed");
			} else {
				logger.warn(
					fields,
					"shutdown: SHUTDOWN_TIMEOUT_SECONDS reached, open requests cut; Redis and the database closed",
				);
			}
			process.exit(0);
		});
	};
	process.on("SIGINT", () => shutdown("SIGINT"));
	process.on("SIGTERM", () => shutdown("SIGTERM"));
	// Announced only now: a supervisor may signal the moment it reads the
	// address, and a signal before the handlers would kill without a drain.
	logger.info({ url: server.url, admin_url: server.adminUrl }, "listening");
	console.error(`testfax-api listening on ${server.url} (admin ${server.adminUrl})`);
} catch (error) {
	if (error instanceof ConfigError) {
		console.error(`configuration error: ${error.message}`);
		process.exit(2);
	}
	if (!(error instanceof StartupError || error instanceof DatabaseOpenError)) throw error;
	console.error(error.message);
	process.exit(1);
}
