import { readFileSync } from "node:fs";

/** Redoc's prebuilt renderer and its source map, from the installed package. */
export const REDOC_BUNDLE_FILE = Bun.resolveSync("redoc/bundles/redoc.standalone.js", import.meta.dir);
export const REDOC_MAP_FILE = `${REDOC_BUNDLE_FILE}.map`;

/**
 * What the sidebar's "API docs by Redocly" shows instead of Redocly's logo
 * from their CDN, which the docs page's policy refuses (a console error on
 * every visit); no Redoc option hides it (docs/decisions.md, "Workarounds").
 * As long as the address it replaces, so every column of the source map
 * still points where it did.
 */
export const REDOC_LOGO_PATH = "/docs/redoc-sidebar-attribution-logo.svg";
const REDOC_LOGO_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg";
/**
 * The search worker's source-map comment names a file beside the worker's
 * blob: address, where nothing can be fetched; blanked to the same length.
 */
const WORKER_MAP_COMMENT = /\/\/# sourceMappingURL=[0-9a-f]+\.worker\.js\.map/g;

function replaceOnce(text: string, find: string | RegExp, replace: (found: string) => string): string {
	const found =
		typeof find === "string" ? text.split(find).length - 1 : [...text.matchAll(find as RegExp)].length;
	if (found !== 1)
		throw new Error(`the Redoc bundle holds ${found} of ${String(find)}, not 1: see docs/decisions.md`);
	return text.replace(find, replace);
}

/** The bundle as the docs page loads it: Redoc's, with the two addresses above replaced. */
export function patchedRedocBundle(original = readFileSync(REDOC_BUNDLE_FILE, "utf8")): string {
	if (REDOC_LOGO_PATH.length !== REDOC_LOGO_URL.length)
		throw new Error("the logo's path must keep the length");
	const local = replaceOnce(original, REDOC_LOGO_URL, () => REDOC_LOGO_PATH);
	return replaceOnce(local, WORKER_MAP_COMMENT, (comment) => `//${" ".repeat(comment.length - 2)}`);
}
