// The calls being received now: fed from their session logs as they grow,
// shared through the database, shown on /faxtest.
export { CallFeed } from "./call-feed.ts";
export { CallStreams } from "./call-streams.ts";
export type { CallView, ShownCall } from "./call-view.ts";
export { type CallFilter, CallsShown } from "./calls-shown.ts";
