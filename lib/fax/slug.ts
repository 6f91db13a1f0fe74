const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const TOKEN_LENGTH = 12;
// 62 * 4 = 248: bytes at or above it are rejected so every character is equally likely.
const UNBIASED_LIMIT = 248;

export const SLUG_PATTERN = /^fax_[A-Za-z0-9]+$/;

/** A new slug: `fax_` and 12 characters drawn from a CSPRNG. */
export function newSlug(): string {
	let token = "";
	while (token.length < TOKEN_LENGTH) {
		for (const byte of crypto.getRandomValues(new Uint8Array(TOKEN_LENGTH * 2))) {
			if (byte < UNBIASED_LIMIT && token.length < TOKEN_LENGTH) token += ALPHABET.charAt(byte % 62);
		}
	}
	return `fax_${token}`;
}

// newSlugsInOrder draws the first characters of a slug as one number below
// 62^5 (< 2^30), so that sorting numbers sorts the slugs; its digits map to
// characters in code-unit order, the order SQLite compares text in.
const PREFIX_LENGTH = 5;
const PREFIX_RANGE = 62 ** PREFIX_LENGTH;
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));
const CODE_ORDER = ALPHABET_CODES.slice().sort();
const SLUG_LENGTH = "fax_".length + TOKEN_LENGTH;

function randomPrefixes(count: number): Uint32Array {
	const prefixes = new Uint32Array(count);
	const words = new Uint32Array(16_384);
	let filled = 0;
	while (filled < count) {
		crypto.getRandomValues(words);
		for (const word of words) {
			const value = word >>> 2;
			if (value < PREFIX_RANGE && filled < count) prefixes[filled++] = value;
		}
	}
	return prefixes;
}

/**
 * `count` new slugs in ascending order, each as random as one of newSlug's:
 * a bulk load inserting them in this order writes next to where it wrote
 * last in the slug index, instead of all over it.
 */
export function newSlugsInOrder(count: number): string[] {
	const prefixes = randomPrefixes(count).sort();
	const text = new Uint8Array(count * SLUG_LENGTH);
	const random = new Uint8Array(65_536);
	let at = random.length;
	for (let i = 0; i < count; i++) {
		const start = i * SLUG_LENGTH;
		text.set([102, 97, 120, 95], start);
		let value = prefixes[i] ?? 0;
		for (let digit = PREFIX_LENGTH; digit > 0; digit--) {
			text[start + 3 + digit] = CODE_ORDER[value % 62] ?? 0;
			value = Math.floor(value / 62);
		}
		for (let char = 4 + PREFIX_LENGTH; char < SLUG_LENGTH; ) {
			if (at === random.length) {
				crypto.getRandomValues(random);
				at = 0;
			}
			const byte = random[at++] ?? UNBIASED_LIMIT;
			if (byte < UNBIASED_LIMIT) text[start + char++] = ALPHABET_CODES[byte % 62] ?? 0;
		}
	}
	const all = Buffer.from(text.buffer).toString("latin1");
	return Array.from({ length: count }, (_, i) => all.slice(i * SLUG_LENGTH, (i + 1) * SLUG_LENGTH));
}

/** A slug that is not of this shape can never exist. */
export function isSlugShape(value: string): boolean {
	return SLUG_PATTERN.test(value);
}
