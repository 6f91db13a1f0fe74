/**
 * Runs `run` once, `ms` from now, and returns what cancels it. The server
 * takes one so that a test can step the time a held request waits instead of
 * waiting it out (testkit/stepped-time.ts).
 */
export type SetTimer = (run: () => void, ms: number) => () => void;

export const realTimer: SetTimer = (run, ms) => {
	const timer = setTimeout(run, ms);
	return () => clearTimeout(timer);
};
