const ESCAPES: Record<string, string> = {
	"&": "&amp;",
	"<": "&lt;",
	">": "&gt;",
	'"': "&quot;",
	"'": "&#39;",
};

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
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
`;

/** A whole page: title, the shared look, the body, and an optional script that only adds to it. */
export function htmlPage(title: string, body: string, script = ""): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
${script === "" ? "" : `<script>${script}</script>\n`}</body>
</html>
`;
}
