// The waiting client of "Waiting for a test fax" in docs/API.md, behind `fax wait`.
export {
	lineReporter,
	liveLineReporter,
	type ProgressReporter,
	type StatusTerminal,
	silentReporter,
} from "./progress-reporter.ts";
export { formatSeconds } from "./progress-text.ts";
export { WAIT_USER_AGENT } from "./user-agent.ts";
export { type WaitDependencies, type WaitProgress, type WaitResult, waitForFax } from "./wait-for-fax.ts";
export {
	DEFAULT_INTERVAL_SECONDS,
	DEFAULT_TIMEOUT_SECONDS,
	MAX_TIMEOUT_SECONDS,
	WaitOptionError,
	type WaitOptions,
} from "./wait-options.ts";
