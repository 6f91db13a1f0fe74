const FORMAT_CHARACTERS = /\p{Cf}/gu;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

const digitValues = new Map<number, string>();

/**
 * The ASCII digit of a decimal digit of any script. Unicode encodes every
 * script's decimal digits as runs of ten, 0 to 9 in order (a stability
 * guarantee), so a digit's value is its distance from the start of its run.
 */
function asciiDigit(digit: string): string {
	const code = digit.codePointAt(0) ?? 0;
	let value = digitValues.get(code);
	if (value === undefined) {
		let start = code;
		while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
		value = String((code - start) % 10);
		digitValues.set(code, value);
	}
	return value;
}

/**
 * A sender as the masking and matching rules read it, whatever its script or
 * Unicode form: NFKC (full-width and other compatibility forms become plain
 * letters, digits and at-signs), invisible format characters (zero-width
 * spaces, soft hyphens, direction marks) removed, and the decimal digits of
 * every script written as ASCII digits.
 */
export function normaliseSender(raw: string): string {
	return raw
		.toWellFormed()
		.normalize("NFKC")
		.replace(FORMAT_CHARACTERS, "")
		.replace(NON_ASCII_DIGIT, asciiDigit);
}
