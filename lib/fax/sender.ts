/**
 * The raw sender never leaves the server: responses carry `maskSender`, the
 * `from` filter compares `senderMatchKey`s. Rules: DECISIONS.md "Sender".
 */

const WHITE_SPACE = /\s+/g;
const DIGIT = /[0-9]/;
const MASKED_DIGITS = 5;
const KEPT_DIGITS = 3;
const NUMBER_MIN_DIGITS = 6;

function maskEmail(address: string): string {
	const lower = address.toLowerCase();
	const at = lower.lastIndexOf("@");
	const local = lower.slice(0, at);
	const domain = lower.slice(at + 1);
	const dot = domain.lastIndexOf(".");
	const masked = `${local.charAt(0)}***@${domain.charAt(0)}***`;
	return dot === -1 ? masked : `${masked}.${domain.slice(dot + 1)}`;
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
	const trimmed = raw.trim();
	if (trimmed === "") return null;
	if (trimmed.includes("@")) return maskEmail(trimmed);
	const compact = trimmed.replace(WHITE_SPACE, "");
	const digits = digitPositionsOf(compact);
	if (digits.length >= NUMBER_MIN_DIGITS) return maskNumber(compact, digits);
	return trimmed;
}

/** The key two senders match on: case, white space and one leading `+` do not count. */
export function senderMatchKey(value: string): string {
	const compact = value.toLowerCase().replace(WHITE_SPACE, "");
	return compact.startsWith("+") ? compact.slice(1) : compact;
}

/** The match key stored for a raw sender; null when the fax has no sender ID. */
export function storedSenderKey(raw: string | null): string | null {
	if (raw === null || raw.trim() === "") return null;
	return senderMatchKey(raw);
}

/** `from=Unknown` (any case) selects faxes that arrived without a sender ID. */
export function isUnknownSenderQuery(value: string): boolean {
	return value.toLowerCase() === "unknown";
}
