import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The content codings the service compresses with, in its order of preference. */
export const CODINGS = ["br", "gzip"] as const;
export type Coding = (typeof CODINGS)[number];

// Below this size a compressed answer saves less than the fields that announce
// it cost, and fits one TCP segment either way.
const MIN_COMPRESSED_UNITS = 1024;
// Fast settings: every distinct list answer is compressed once per commit, so
// clients polling their own `since` make this a per-request cost after each
// new fax. Measured on the 31 KB poll of 100 faxes: brotli 5 gives 1.6 KB in
// 0.3 ms (quality 11: 1.4 KB in 33 ms), gzip 6 gives 2.3 KB in 0.1 ms.
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };
const GZIP_OPTIONS = { level: 6 };

/**
 * One answer's content: its text, the ETag derived from it, and its
 * compressed forms, each made once, on first use, and kept with the answer.
 * The ETag depends on nothing but the text, so every instance gives the same
 * answer the same ETag. It is weak (`W/`), so the same tag names the identity
 * and the compressed forms of one content.
 */
export class Representation {
	readonly text: string;
	/** What an identity answer sends: the text, or the same bytes as a file. */
	readonly identity: string | Blob;
	#etag: string | undefined;
	#encoded: Partial<Record<Coding, Uint8Array | null>> = {};

	constructor(text: string, identity: string | Blob = text) {
		this.text = text;
		this.identity = identity;
	}

	get etag(): string {
		this.#etag ??= `W/"${Bun.SHA256.hash(this.text, "base64url").slice(0, 22)}"`;
		return this.#etag;
	}

	/** The text in `coding`; null when it is too short to gain from it. */
	encoded(coding: Coding): Uint8Array | null {
		let bytes = this.#encoded[coding];
		if (bytes === undefined) {
			bytes = this.text.length < MIN_COMPRESSED_UNITS ? null : compress(this.text, coding);
			this.#encoded[coding] = bytes;
		}
		return bytes;
	}
}

function compress(text: string, coding: Coding): Uint8Array | null {
	const input = Buffer.from(text);
	const output = coding === "br" ? brotliCompressSync(input, BROTLI_OPTIONS) : gzipSync(input, GZIP_OPTIONS);
	return output.byteLength < input.byteLength ? new Uint8Array(output) : null;
}
