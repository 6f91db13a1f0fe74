import { ConfigError, loadConfig } from "../lib/config.ts";
import { startServer } from "../lib/server.ts";

try {
	const server = await startServer(loadConfig(process.env));
	console.error(`testfax-api listening on ${server.url}`);
	const shutdown = () => {
		server.stop().then(() => process.exit(0));
	};
	process.on("SIGINT", shutdown);
	process.on("SIGTERM", shutdown);
} catch (error) {
	if (!(error instanceof ConfigError)) throw error;
	console.error(`configuration error: ${error.message}`);
	process.exit(2);
}
