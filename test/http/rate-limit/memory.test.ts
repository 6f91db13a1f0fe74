import { defineRateLimitSuite } from "./suite.ts";

// Each server has its own in-process window, so no environment is needed to isolate tests.
defineRateLimitSuite({ name: "in-process", env: () => ({}) });
