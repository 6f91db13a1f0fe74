// The header set of each kind of answer; docs/decisions.md, "Security
// headers", gives the reasons. Every answer carries SECURITY_HEADERS; an HTML
// page and a received file replace its policy with their own.

/**
 * A JSON or text answer loads nothing, runs nothing, and is never framed. Every
 * answer of both listeners starts with these: API answers, errors, 404s,
 * preflights, the API description and guide, the docs page's renderer.
 */
export const SECURITY_HEADERS = {
	"content-security-policy": "default-src 'none'; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
	// For browsers that know no frame-ancestors.
	"x-frame-options": "DENY",
	// Nothing the pages link to needs to know where the reader came from, and
	// a fax's address is better not passed on.
	"referrer-policy": "no-referrer",
};

/**
 * A file received from anyone (a fax's PDF and its thumbnail), as GitHub
 * serves user content: it may style itself (a browser's PDF viewer does), and
 * it is a sandboxed document of no origin, so whatever it holds cannot act as
 * this origin's page, read its storage, or open windows.
 */
export const RECEIVED_FILE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
