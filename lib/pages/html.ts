const ESCAPES: Record<string, string> = {
	"&": "&amp;",
	"<": "&lt;",
	">": "&gt;",
	'"': "&quot;",
	"'": "&#39;",
};

// A control character is a parse error in HTML (and NUL is replaced, a
// character reference to one is an error too): each C0 control and DEL shows
// as its symbol from Unicode's Control Pictures (U+0007 as ␇), so a reader sees
// that a sender held one; a C1 control (U+0080–U+009F), which has no symbol,
// shows as U+FFFD.
const CONTROL_PICTURES = 0x2400;
const DELETE_PICTURE = "\u2421";
const REPLACEMENT = "\ufffd";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its job
const SPECIAL = /[&<>"'\u0000-\u001f\u007f-\u009f]/g;

function replacementOf(char: string): string {
	const escaped = ESCAPES[char];
	if (escaped !== undefined) return escaped;
	const code = char.charCodeAt(0);
	if (code < 0x20) return String.fromCharCode(CONTROL_PICTURES + code);
	return code === 0x7f ? DELETE_PICTURE : REPLACEMENT;
}

/** Text made safe for HTML content and quoted attribute values, with no control character left. */
export function escapeHtml(text: string): string {
	return text.replace(SPECIAL, replacementOf);
}

/** The `'sha256-…'` source that lets exactly this inline script or style apply under a policy. */
function hashSource(text: string): string {
	return `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;
}

/** The pages' shared look: readable without any script, in light and dark. */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0 auto; max-width: 40rem; padding: 1.5rem 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1.2rem; margin: 0 0 1.5rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
figure { margin: 0 0 1rem; }
img { max-width: 100%; height: auto; border: 1px solid #8888; background: #fff; }
a { color: LinkText; }
footer { margin-top: 2rem; font-size: 0.9rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 0.75rem; }
form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; margin: 0 0 1rem; }
label { display: flex; flex-direction: column; flex: 1 1 14rem; }
input, button { font: inherit; padding: 0.35rem 0.5rem; }
ol.faxes { list-style: none; padding: 0; margin: 0; }
ol.faxes li { display: flex; gap: 1rem; padding: 0.75rem 0; border-top: 1px solid #8884; }
ol.faxes li.new { background: #fc04; box-shadow: inset 4px 0 0 #d80; }
ol.faxes li.call { box-shadow: inset 4px 0 0 #06c; padding-left: 0.5rem; }
ol.faxes li.call .thumb { font-weight: bold; }
ol.faxes li.call ol.done { margin: 0.25rem 0 0; padding-left: 1.25rem; font-size: 0.9em; }
ol.faxes li.call ol.done li { display: list-item; padding: 0; border: 0; }
#verdict { border-left: 4px solid #8888; padding: 0 0 0 1rem; margin: 0 0 1.5rem; }
#verdict.verdict-good { border-color: #2a2; }
#verdict.verdict-warning { border-color: #d80; }
#verdict.verdict-failed { border-color: #d22; }
pre { overflow-x: auto; font-size: 0.8rem; }
ol.faxes .thumb { flex: 0 0 6.5rem; }
ol.faxes .thumb img { width: 6.5rem; }
ol.faxes .thumb img, figure img { aspect-ratio: auto 210 / 297; }
ol.faxes .facts { flex: 1 1 auto; min-width: 0; overflow-wrap: anywhere; }
.status { font-size: 0.9rem; min-height: 1.5em; }
dl.fields { display: block; }
dl.fields dd { margin: 0 0 0.75rem 1rem; }
.where { font-weight: 400; font-size: 0.9rem; }
table { display: block; overflow-x: auto; border-collapse: collapse; margin: 0 0 1rem; }
th, td { border: 1px solid #8886; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
code { overflow-wrap: anywhere; }
`;

const STYLE_SOURCE = hashSource(STYLE);

/** The site's icon, linked from every page (routes/favicon.svg.ts). */
export const FAVICON_PATH = "/favicon.svg";

/** A page and the Content-Security-Policy it is sent with. */
export interface HtmlPage {
	html: string;
	policy: string;
}

/** What a page may load besides its shared look. */
export interface PageParts {
	/** An inline script that only adds to the page; a constant, so its hash is taken once. */
	script?: { text: string; source: string };
	/** The origin its images come from (the CDN's); none when it shows no image. */
	imageOrigin?: string;
	/**
	 * A script file from this origin (its path) that may call this origin's
	 * API: the policy allows scripts and connections to 'self' only.
	 */
	scriptFile?: string;
	/** The page has a form that submits to this origin (GET, no script needed). */
	formToSelf?: boolean;
	/** What search engines show under the title; the site's own line when absent. */
	description?: string;
}

const SITE_DESCRIPTION =
	"A public fax test site: send a test fax by phone or email and see within 5 seconds whether it arrived, how the call went and what to change.";

/** A script for `PageParts`: its text and the hash source that allows it. */
export function pageScript(text: string): { text: string; source: string } {
	return { text, source: hashSource(text) };
}

// Only the page's own style and script apply, images come from this origin
// (the site's icon) and the CDN only, and nothing else is loaded, submitted,
// rebased or framed.
function policyOf(parts: PageParts): string {
	const sources = [parts.scriptFile === undefined ? undefined : "'self'", parts.script?.source];
	const scripts = sources.filter((source) => source !== undefined);
	const script = scripts.length === 0 ? "" : `; script-src ${scripts.join(" ")}`;
	const connect = parts.scriptFile === undefined ? "" : "; connect-src 'self'";
	const images = parts.imageOrigin === undefined ? "'self'" : `'self' ${parts.imageOrigin}`;
	const form = parts.formToSelf ? "'self'" : "'none'";
	return `default-src 'none'${script}${connect}; style-src ${STYLE_SOURCE}; img-src ${images}; base-uri 'none'; form-action ${form}; frame-ancestors 'none'`;
}

/** A whole page: title, the shared look, the body, and what else it uses; with its policy. */
export function htmlPage(title: string, body: string, parts: PageParts = {}): HtmlPage {
	const script = parts.script?.text;
	const file =
		parts.scriptFile === undefined ? "" : `<script src="${escapeHtml(parts.scriptFile)}" defer></script>\n`;
	const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${escapeHtml(parts.description ?? SITE_DESCRIPTION)}">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<style>${STYLE}</style>
${file}</head>
<body>
${body}
${script === undefined ? "" : `<script>${script}</script>\n`}</body>
</html>
`;
	return { html, policy: policyOf(parts) };
}
