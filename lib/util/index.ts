// Small helpers every layer may use; they depend on nothing of this project.
export { errorMessage } from "./error-message.ts";
export { completeTracingChannel } from "./tracing-channel.ts";
