// HTML pages for people: the page of a fax behind `view_url`.
export { faxPage, missingFaxPage, removedFaxPage } from "./fax-page.ts";
export { escapeHtml, htmlPage } from "./html.ts";
