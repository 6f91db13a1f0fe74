// Demo faxes for a first run: real PDFs and thumbnails, times relative to now.
export { seedDemoFaxes } from "./seed-demo.ts";
