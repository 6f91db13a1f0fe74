import { definePlainRoute } from "../../lib/http/index.ts";
import { FAVICON_PATH } from "../../lib/pages/index.ts";
import { Representation } from "../../lib/representation/index.ts";

const HTML_TYPE = "text/html; charset=utf-8";

// Redoc reads the description and renders it in the page; its bundle comes from
// this server (routes/docs/redoc.standalone.js.ts), so the page works offline.
// The policy keeps it so: nothing is loaded from elsewhere (the bundle's one
// address elsewhere, its maker's logo, is replaced: lib/pages/redoc-bundle.ts).
// Sent as a header, as only a header can forbid framing the page.
const POLICY = [
	"default-src 'self'",
	"img-src 'self' data:",
	"style-src 'self' 'unsafe-inline'",
	"worker-src 'self' blob:",
	"base-uri 'none'",
	"form-action 'none'",
	"frame-ancestors 'none'",
].join("; ");
const HEADERS = { "content-security-policy": POLICY };

const PAGE = new Representation(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="The testfax API's description, rendered by Redoc: endpoints, parameters, answers, schemas and samples.">
<title>testfax API reference</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<style>body { margin: 0; }</style>
</head>
<body>
<noscript>
<p>This page renders the API description with JavaScript. Without it, read the same description on
<a href="/docs">the documentation page</a>, as <a href="/openapi.json">openapi.json</a> (OpenAPI 3.1),
or the guide for API users, <a href="/docs/API.md">docs/API.md</a>.</p>
</noscript>
<redoc spec-url="/openapi.json" expand-responses="200" required-props-first="true" hide-hostname="true"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`);

/**
 * GET /docs/interactive: the API description rendered by Redoc. Its 1.1 MB
 * renderer takes seconds of a phone's processor, so /docs, made on the
 * server, comes first and links here.
 */
export const route = definePlainRoute(() => ({
	status: 200,
	body: PAGE,
	type: HTML_TYPE,
	headers: HEADERS,
}));
