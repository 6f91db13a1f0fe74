// Demo faxes for a first run: real PDFs and thumbnails, times relative to now;
// and a real call shown while it is received, replayed over and over.
export { Pauses, replayCall, startDemoCall, type TimedLine, timedLines } from "./demo-call.ts";
export { seedDemoFaxes } from "./seed-demo.ts";
