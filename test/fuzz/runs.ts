import type { Parameters } from "fast-check";

/**
 * The number of cases of every property, in one table: the fast run of
 * `npm test`, and the long run of `npm run test:fuzz` (FUZZ_LONG=1) that CI
 * runs after it. FUZZ_SEED (and FUZZ_PATH) replay a failure fast-check reported.
 */
export const CASES = {
	senderLeak: { fast: 300, long: 5_000 },
	senderIngest: { fast: 10, long: 100 },
	anySender: { fast: 300, long: 2_500 },
	listQuery: { fast: 1_000, long: 7_500 },
	oversizedQuery: { fast: 20, long: 150 },
	requests: { fast: 800, long: 6_000 },
	rateLimited: { fast: 300, long: 1_500 },
	malformedRequests: { fast: 100, long: 1_000 },
	forwardedFor: { fast: 500, long: 4_000 },
	faxLifecycle: { fast: 20, long: 150 },
	damagedDocuments: { fast: 30, long: 500 },
	hylafaxSession: { fast: 40, long: 500 },
	callModel: { fast: 300, long: 5_000 },
} as const;

export type Suite = keyof typeof CASES;

export const LONG_RUN = process.env.FUZZ_LONG === "1";

/** fast-check's parameters for one property: its number of cases, and the seed and path to replay, if given. */
export function runs<T>(suite: Suite): Parameters<T> {
	const seed = process.env.FUZZ_SEED;
	const path = process.env.FUZZ_PATH;
	return {
		numRuns: LONG_RUN ? CASES[suite].long : CASES[suite].fast,
		...(seed ? { seed: Number(seed) } : {}),
		...(path ? { path } : {}),
	};
}

/** Time a property test may take: the long run's many cases need far more than a test's usual limit. */
export const PROPERTY_TIMEOUT_MS = LONG_RUN ? 60 * 60_000 : 120_000;
