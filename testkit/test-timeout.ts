import { plugin } from "bun";

/**
 * Every test gets 60 s instead of Bun's 5 s: tests start real servers, Redis,
 * nginx and Chromium, and some wait out a rate-limit window; at a load average
 * of 15 on 2 cores, starting a server and a TLS Redis took more than 30 s.
 *
 * A plain `setDefaultTimeout(30_000)` here would reach only the first test file
 * of a run (Bun 1.4.5, oven-sh/bun#43787; fix proposed in oven-sh/bun#39235), and
 * bunfig.toml has no timeout key (oven-sh/bun#7789). So each test file calls it
 * itself, at load time, through this loader; the call is put on the file's first
 * line so reported line numbers stay true. test/tooling/test-timeout.test.ts
 * fails once Bun keeps a preload's default for every file, so this can go.
 */
export const TEST_TIMEOUT_MS = 60_000;

plugin({
	name: "default test timeout",
	setup(build) {
		build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
			contents: `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(${TEST_TIMEOUT_MS}); ${await Bun.file(path).text()}`,
			loader: "ts",
		}));
	},
});
