// How the pages write sizes, counts and times for people.

const bytes = new Intl.NumberFormat("en");
const decimal = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

function exactSize(size: number): string {
	return `${bytes.format(size)} byte${size === 1 ? "" : "s"}`;
}

/** `12.3 kB`: the size at a glance. */
export function shortSize(size: number): string {
	if (size < 1000) return exactSize(size);
	const [amount, unit] = size < 1_000_000 ? [size / 1000, "kB"] : [size / 1_000_000, "MB"];
	return `${decimal.format(amount)} ${unit}`;
}

/** `12.3 kB (12,345 bytes)`: at a glance, and exactly. */
export function sizeText(size: number): string {
	return size < 1000 ? exactSize(size) : `${shortSize(size)} (${exactSize(size)})`;
}

/** `2026-11-22T11:59:00Z` → `2026-11-22 11:59:00 UTC`. */
export function utcText(receivedAt: string): string {
	return `${receivedAt.slice(0, 10)} ${receivedAt.slice(11, 19)} UTC`;
}

export function pagesText(count: number): string {
	return `${count} page${count === 1 ? "" : "s"}`;
}

/** A whole number with thousands separators. */
export function numberText(value: number): string {
	return bytes.format(value);
}
