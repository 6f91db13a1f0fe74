import { steppedSuiteClock } from "./answers.ts";
import { defineRateLimitSuite } from "./suite.ts";

// Each server has its own in-process window, so no environment is needed to
// isolate tests; the window runs on the server's monotonic clock, which the
// window tests step.
defineRateLimitSuite({ name: "in-process", env: () => ({}), clock: steppedSuiteClock });
