import { ConfigError, loadConfig } from "../lib/config.ts";
import { DatabaseOpenError } from "../lib/db/index.ts";
import { StartupError, startServer } from "../lib/server.ts";

// Start-up failures an operator can fix get one line naming the setting and an
// exit code, not a stack trace: 2 for a bad value, 1 for the disk or the network.
try {
	const server = await startServer(loadConfig(process.env));
	console.error(`testfax-api listening on ${server.url}`);
	const shutdown = () => {
		server.stop().then(() => process.exit(0));
	};
	process.on("SIGINT", shutdown);
	process.on("SIGTERM", shutdown);
} catch (error) {
	if (error instanceof ConfigError) {
		console.error(`configuration error: ${error.message}`);
		process.exit(2);
	}
	if (!(error instanceof StartupError || error instanceof DatabaseOpenError)) throw error;
	console.error(error.message);
	process.exit(1);
}
