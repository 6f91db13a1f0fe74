/**
 * The raw sender never leaves the server: responses carry `maskSender`, the
 * `from` filter compares `senderMatchKey`s. Rules: docs/API.md "Senders",
 * applied to the normalised sender (sender-text.ts), so no script, Unicode
 * form or decoration gets a sender past them.
 */
import { type EmailAddress, emailAddressIn } from "./email-address.ts";
import { firstGrapheme } from "./graphemes.ts";
import { normaliseSender } from "./sender-text.ts";

const WHITE_SPACE = /\s+/g;
const DIGIT = /[0-9]/;
const MASKED_DIGITS = 5;
const KEPT_DIGITS = 3;
const NUMBER_MIN_DIGITS = 6;
// A top-level domain is letters; a last label with digits in it is no TLD and
// could carry a number past the mask ("fax@1.555.867.5309").
const TOP_LEVEL_DOMAIN = /^\p{L}[\p{L}\p{M}-]*$/u;

function maskEmail({ local, domain }: EmailAddress): string {
	const dot = domain.lastIndexOf(".");
	const masked = `${firstGrapheme(local)}***@${firstGrapheme(domain)}***`;
	const topLevel = domain.slice(dot + 1);
	return dot !== -1 && TOP_LEVEL_DOMAIN.test(topLevel) ? `${masked}.${topLevel}` : masked;
}

function maskNumber(compact: string, digitPositions: number[]): string {
	const count = digitPositions.length;
	const maskFrom = digitPositions[Math.max(0, count - KEPT_DIGITS - MASKED_DIGITS)] ?? 0;
	const keepFrom = digitPositions[count - KEPT_DIGITS] ?? compact.length;
	return `${compact.slice(0, maskFrom)}*****${compact.slice(keepFrom)}`;
}

function digitPositionsOf(text: string): number[] {
	const positions: number[] = [];
	for (let i = 0; i < text.length; i++) if (DIGIT.test(text.charAt(i))) positions.push(i);
	return positions;
}

/** The public form of a raw sender, or null when there is none. */
export function maskSender(raw: string | null): string | null {
	if (raw === null) return null;
	const sender = normaliseSender(raw).trim();
	if (sender === "") return null;
	if (sender.includes("@")) return maskEmail(emailAddressIn(sender));
	const compact = sender.replace(WHITE_SPACE, "");
	const digits = digitPositionsOf(compact);
	if (digits.length >= NUMBER_MIN_DIGITS) return maskNumber(compact, digits);
	return sender;
}

/**
 * The key two senders match on: case, white space and one leading `+` do not
 * count, nor does the script or Unicode form; of an email sender only the
 * address counts, not its display name or comment.
 */
export function senderMatchKey(value: string): string {
	const sender = normaliseSender(value);
	const address = sender.includes("@") ? emailAddressIn(sender) : null;
	const text = address === null ? sender : `${address.local}@${address.domain}`;
	const compact = text.toLowerCase().replace(WHITE_SPACE, "");
	return compact.startsWith("+") ? compact.slice(1) : compact;
}

/** The match key stored for a raw sender; null when the fax has no sender ID. */
export function storedSenderKey(raw: string | null): string | null {
	if (raw === null || normaliseSender(raw).trim() === "") return null;
	return senderMatchKey(raw);
}

const UNKNOWN_KEY = senderMatchKey("Unknown");

/**
 * `from=Unknown` selects faxes that arrived without a sender ID. It is read
 * by the match key, as any sender is: case, white space, invisible format
 * characters and one leading `+` do not count.
 */
export function isUnknownSenderQuery(value: string): boolean {
	return senderMatchKey(value) === UNKNOWN_KEY;
}
