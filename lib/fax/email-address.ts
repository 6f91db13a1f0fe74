const OPEN = 40; // (
const CLOSE = 41; // )
// What ends the local part going left from the at-sign: white space and the
// brackets and separators of display names, comments and address lists.
const ENDS_LOCAL_PART = /[\s<>()[\],;:]/u;
// A domain is letters, digits, dots and hyphens of any script; anything else ends it.
const DOMAIN = /^[\p{L}\p{M}\p{N}._-]*/u;
const WHITE_SPACE = /\s/u;

/** `text` with its parenthesised comments, nested ones too, replaced by a space; an unclosed one runs to the end. */
function withoutComments(text: string): string {
	let kept = "";
	let depth = 0;
	let start = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code === OPEN) {
			if (depth === 0) kept += `${text.slice(start, i)} `;
			depth++;
		} else if (code === CLOSE && depth > 0) {
			depth--;
			if (depth === 0) start = i + 1;
		}
	}
	return depth === 0 ? kept + text.slice(start) : kept;
}

// Scans rather than regular expressions ending in `*$`, which backtrack into
// quadratic time on long runs (a sender can be long).
function localPartBefore(text: string, at: number): string {
	let end = at;
	while (end > 0 && WHITE_SPACE.test(text.charAt(end - 1))) end--;
	let start = end;
	while (start > 0 && !ENDS_LOCAL_PART.test(text.charAt(start - 1))) start--;
	return text.slice(start, end);
}

function domainAfter(text: string, at: number): string {
	let start = at + 1;
	while (start < text.length && WHITE_SPACE.test(text.charAt(start))) start++;
	const domain = DOMAIN.exec(text.slice(start))?.[0] ?? "";
	let end = domain.length;
	while (end > 0 && domain.charAt(end - 1) === ".") end--;
	return domain.slice(0, end);
}

export interface EmailAddress {
	/** The local part; "" when nothing stands before the at-sign. */
	local: string;
	/** The domain, without a trailing dot; "" when nothing usable follows the at-sign. */
	domain: string;
}

/**
 * The address in a sender that contains an at-sign, lower-cased, without what
 * surrounds it: a display name (`Name <a@b.org>`), a comment (`a@b.org (Name)`),
 * a list separator. The last at-sign outside comments separates local part and
 * domain, white space around it aside; when every at-sign is inside a comment,
 * the comment's brackets bound the address instead.
 */
export function emailAddressIn(text: string): EmailAddress {
	const outside = withoutComments(text);
	const source = (outside.includes("@") ? outside : text).toLowerCase();
	const at = source.lastIndexOf("@");
	return { local: localPartBefore(source, at), domain: domainAfter(source, at) };
}
