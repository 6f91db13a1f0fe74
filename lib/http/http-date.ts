let second = -1;
let text = "";

/**
 * The `Date` field of an answer sent now (RFC 9110 section 5.6.7), made once a
 * second: Bun 1.4.5 sends none on an answer without a body (a HEAD's), so the
 * app sends it there itself.
 */
export function httpDateNow(): string {
	const now = Math.floor(Date.now() / 1000);
	if (now !== second) {
		second = now;
		text = new Date(now * 1000).toUTCString();
	}
	return text;
}
