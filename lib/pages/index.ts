// HTML pages for people: the page of a fax behind `view_url`, the live list, the docs.

export { docsPage, INTERACTIVE_DOCS_PATH } from "./docs-page.ts";
export { faxPage, missingFaxPage, removedFaxPage } from "./fax-page.ts";
export { escapeHtml, FAVICON_PATH, type HtmlPage, htmlPage } from "./html.ts";
export { liveFilterOf } from "./live-filter.ts";
export { LIVE_SCRIPT_PATH, type LiveFilter, type LiveItem, livePage } from "./live-page.ts";
export { type KeptPage, PageMemory } from "./page-memory.ts";
export { patchedRedocBundle, REDOC_BUNDLE_FILE, REDOC_LOGO_PATH, REDOC_MAP_FILE } from "./redoc-bundle.ts";
