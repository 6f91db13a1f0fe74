// Documents as received: PDF, TIFF (CCITT fax included) and email, checked,
// converted to the PDF to store, and a thumbnail of page 1.
export { type DocumentFormat, detectFormat } from "./detect-format.ts";
export { faxStationId } from "./fax-station-id.ts";
export { MAX_EMAIL_BYTES, MAX_INPUT_BYTES } from "./limits.ts";
export { PAPER_SIZES } from "./paper-sizes.ts";
export { type FaxEmail, NO_ATTACHMENT_REASON, parseFaxEmail, parseFaxEmailHeader } from "./parse-email.ts";
export { PipelineUnavailableError, pipelineFault } from "./pipeline.ts";
export { type NotProcessable, type ProcessedDocument, processDocument } from "./process-document.ts";
export type { ScanFacts, ScanPage } from "./scan-facts.ts";
export { scanFacts } from "./scan-facts-on-demand.ts";
export { type TiffPageFacts, tiffFacts } from "./tiff-facts.ts";
