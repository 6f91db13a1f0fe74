/**
 * The environment of a process a test spawns: PATH, then the variables that let
 * libfaketime move the child's clock with the test's (the date-independence run
 * of `.ci/run` starts the suite under `faketime`; a child with a scrubbed
 * environment would read the real clock while its test reads the faked one),
 * then the test's own variables.
 */
export function childEnv(
	env: Record<string, string> = {},
	path = process.env.PATH ?? "",
): Record<string, string> {
	// A child given a libfaketime setting of its own (a stepped clock) takes none of the test's.
	if (Object.keys(env).some(isClockVariable)) return { PATH: path, ...env };
	const clock: Record<string, string> = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (value !== undefined && isClockVariable(name)) clock[name] = value;
	}
	return { PATH: path, ...clock, ...env };
}

function isClockVariable(name: string): boolean {
	return name === "LD_PRELOAD" || name.startsWith("FAKETIME");
}

/**
 * This process's environment without libfaketime, for servers of other hosts
 * (Redis): they keep their own clocks in production, and redis-server under
 * libfaketime never answers its first PING.
 */
export function realClockEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (value !== undefined && !isClockVariable(name)) env[name] = value;
	}
	return env;
}
