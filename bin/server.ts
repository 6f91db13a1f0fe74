import { ConfigError, loadConfig } from "../lib/config.ts";
import { DatabaseOpenError } from "../lib/db/open-database.ts";
import { startServer } from "../lib/server.ts";

// Start-up failures an operator can fix get one clear line and an exit code,
// not a stack trace: 2 for configuration, 1 for the disk or the port.
function startupProblem(error: unknown): string | null {
	if (error instanceof DatabaseOpenError) return error.message;
	if (!(error instanceof Error)) return null;
	const code = (error as Error & { code?: string }).code;
	if (code === "EADDRINUSE") return `cannot listen: the address is in use (HOST/PORT): ${error.message}`;
	if (code === "EACCES" || code === "EROFS") return `permission denied: ${error.message}`;
	return null;
}

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
	const problem = startupProblem(error);
	if (problem === null) throw error;
	console.error(problem);
	process.exit(1);
}
