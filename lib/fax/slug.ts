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

/** A slug that is not of this shape can never exist. */
export function isSlugShape(value: string): boolean {
	return SLUG_PATTERN.test(value);
}
