import { CODINGS, type Coding } from "./representation.ts";

// Below the smallest q-value a coding can be given (0.001).
const UNNAMED_IDENTITY = 0.0001;
// The same few header values come from every client of one kind.
const MAX_REMEMBERED = 256;
const remembered = new Map<string, Coding | null>();

/**
 * The coding to answer with under `Accept-Encoding` (RFC 9110 section 12.5.3):
 * the acceptable one with the highest q-value, brotli before gzip before
 * identity when they tie; null for identity. `*` stands for every coding not
 * named. `identity`, unless named or covered by `*`, is acceptable but ranks
 * below every coding named with a weight above 0 (`gzip;q=0.5` asks for gzip).
 * No header, or nothing better than identity: identity. When even identity is
 * excluded the answer is still identity, as the RFC allows.
 */
export function preferredCoding(header: string | null): Coding | null {
	if (header === null || header === "") return null;
	let coding = remembered.get(header);
	if (coding === undefined) {
		coding = negotiate(header);
		if (remembered.size >= MAX_REMEMBERED) remembered.clear();
		remembered.set(header, coding);
	}
	return coding;
}

function negotiate(header: string): Coding | null {
	const weights = new Map<string, number>();
	for (const item of header.split(",")) {
		const [name = "", ...parameters] = item.split(";");
		const token = name.trim().toLowerCase();
		if (token === "") continue;
		let q = 1;
		for (const parameter of parameters) {
			const [key = "", value = ""] = parameter.split("=");
			if (key.trim().toLowerCase() === "q") q = qValue(value.trim());
		}
		weights.set(token === "x-gzip" ? "gzip" : token, q);
	}
	const any = weights.get("*");
	const weightOf = (coding: string) => weights.get(coding) ?? any ?? 0;
	const identity = weights.get("identity") ?? any ?? UNNAMED_IDENTITY;
	let best: Coding | null = null;
	let bestWeight = identity;
	for (const coding of CODINGS) {
		const weight = weightOf(coding);
		if (weight > 0 && (weight > bestWeight || (best === null && weight === bestWeight))) {
			best = coding;
			bestWeight = weight;
		}
	}
	return best;
}

/** A q-value (`0`, `0.5`, `1.000`); anything else counts as 0, so a malformed weight never wins. */
function qValue(text: string): number {
	return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text) ? Number(text) : 0;
}
