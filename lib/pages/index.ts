// HTML pages for people: the page of a fax behind `view_url`.
export { faxPage, missingFaxPage, removedFaxPage } from "./fax-page.ts";
export { escapeHtml, type HtmlPage, htmlPage } from "./html.ts";
export { LIVE_SCRIPT_PATH, type LiveFilter, livePage } from "./live-page.ts";
