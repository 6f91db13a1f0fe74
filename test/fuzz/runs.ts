/**
 * How many cases a property runs: a few in `npm test`, many in the long run
 * (`npm run test:fuzz`, FUZZ_LONG=1). FUZZ_SEED replays a reported failure.
 */
export const LONG_RUN = process.env.FUZZ_LONG === "1";

export function runs(fast: number, long: number): { numRuns: number; seed?: number } {
	const seed = process.env.FUZZ_SEED;
	return { numRuns: LONG_RUN ? long : fast, ...(seed ? { seed: Number(seed) } : {}) };
}

/** Time a property test may take: the long run's many cases need far more than a test's usual limit. */
export const PROPERTY_TIMEOUT_MS = LONG_RUN ? 60 * 60_000 : 120_000;
