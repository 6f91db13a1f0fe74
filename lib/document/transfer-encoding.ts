// Decodes a body part's content (RFC 2045, section 6) byte by byte into one
// buffer: a large attachment costs its decoded size and nothing more. Decoding
// through strings, a slice at a time, left several times that as garbage.

const EQUALS = 0x3d;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

const BASE64_VALUE = (() => {
	const values = new Int8Array(256).fill(-1);
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
	return values;
})();

const HEX_VALUE = (() => {
	const values = new Int8Array(256).fill(-1);
	for (let digit = 0; digit < 16; digit++) {
		values[digit.toString(16).charCodeAt(0)] = digit;
		values[digit.toString(16).toUpperCase().charCodeAt(0)] = digit;
	}
	return values;
})();

/** The content of a body in the given Content-Transfer-Encoding; 7bit, 8bit, binary and unknown ones are the body. */
export function decodeTransferEncoding(body: Uint8Array, encoding: string): Uint8Array {
	switch (encoding) {
		case "base64":
			return decodeBase64(body);
		case "quoted-printable":
			return decodeQuotedPrintable(body);
		default:
			return body;
	}
}

/** Characters outside the alphabet (line breaks, stray spaces) are skipped, as RFC 2045 says; padding ends the data. */
function decodeBase64(body: Uint8Array): Uint8Array {
	const decoded = new Uint8Array(Math.floor((body.length * 3) / 4) + 2);
	let length = 0;
	let bits = 0;
	let sextets = 0;
	let at = 0;
	while (at < body.length) {
		// Whole groups of four between line breaks, the bulk of the data, in one step.
		if (sextets === 0) {
			while (at + 4 <= body.length) {
				const a = BASE64_VALUE[body[at] as number] as number;
				const b = BASE64_VALUE[body[at + 1] as number] as number;
				const c = BASE64_VALUE[body[at + 2] as number] as number;
				const d = BASE64_VALUE[body[at + 3] as number] as number;
				if ((a | b | c | d) < 0) break;
				const group = (a << 18) | (b << 12) | (c << 6) | d;
				decoded[length] = group >> 16;
				decoded[length + 1] = (group >> 8) & 0xff;
				decoded[length + 2] = group & 0xff;
				length += 3;
				at += 4;
			}
			if (at >= body.length) break;
		}
		const byte = body[at++] as number;
		if (byte === EQUALS) break;
		const value = BASE64_VALUE[byte] as number;
		if (value < 0) continue;
		bits = (bits << 6) | value;
		if (++sextets === 4) {
			decoded[length++] = bits >> 16;
			decoded[length++] = (bits >> 8) & 0xff;
			decoded[length++] = bits & 0xff;
			bits = 0;
			sextets = 0;
		}
	}
	if (sextets === 3) {
		decoded[length++] = bits >> 10;
		decoded[length++] = (bits >> 2) & 0xff;
	} else if (sextets === 2) {
		decoded[length++] = bits >> 4;
	}
	return decoded.subarray(0, length);
}

/** "=XX" is a byte, "=" at the end of a line a soft line break; anything else is itself. */
function decodeQuotedPrintable(body: Uint8Array): Uint8Array {
	const decoded = new Uint8Array(body.length);
	let length = 0;
	for (let at = 0; at < body.length; at++) {
		const byte = body[at] as number;
		if (byte !== EQUALS) {
			decoded[length++] = byte;
			continue;
		}
		const high = HEX_VALUE[body[at + 1] ?? 0] as number;
		const low = HEX_VALUE[body[at + 2] ?? 0] as number;
		if (high >= 0 && low >= 0) {
			decoded[length++] = (high << 4) | low;
			at += 2;
			continue;
		}
		let next = at + 1;
		while (body[next] === SPACE || body[next] === TAB) next++;
		if (body[next] === CR) next++;
		if (body[next] === LF || next === body.length) {
			at = next;
			continue;
		}
		decoded[length++] = byte;
	}
	return decoded.subarray(0, length);
}
