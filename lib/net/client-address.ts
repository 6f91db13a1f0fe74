import ipaddr from "ipaddr.js";
import { errorMessage } from "../util/index.ts";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range<T> = [T, number];

/** Resolves the rate-limit key from the TCP peer and X-Forwarded-For. */
export type ClientKeyResolver = (peerAddress: string, forwardedFor: string | null) => string;

const DOT = 46;

/**
 * A strict dotted quad: four decimal octets up to 255 without leading zeros,
 * what ipaddr.js's isValidFourPartDecimal accepts. Read by hand: that check
 * and parse() run three regular expressions, a good part of every answer.
 */
function parseIPv4(text: string): ipaddr.IPv4 | null {
	const octets: number[] = [];
	let value = 0;
	let digits = 0;
	for (let i = 0; i <= text.length; i++) {
		const code = i === text.length ? DOT : text.charCodeAt(i);
		if (code === DOT) {
			if (digits === 0 || value > 255 || octets.length === 4) return null;
			octets.push(value);
			value = 0;
			digits = 0;
			continue;
		}
		const digit = code - 48;
		if (digit < 0 || digit > 9 || (digits === 1 && value === 0) || digits === 3) return null;
		value = value * 10 + digit;
		digits++;
	}
	return octets.length === 4 ? new ipaddr.IPv4(octets) : null;
}

/**
 * The IPv4 address an IPv6 address stands for, if it is one written as IPv6:
 * IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`). However it
 * is spelled (`0:0:0:0:0:0:a.b.c.d`, `::0102:0304`), one address must give one
 * key. An IPv4-compatible address holds a unicast IPv4 address (RFC 4291), so
 * `::`, `::1` and the rest of ::/104 are no IPv4 addresses: they stay IPv6.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
	const [a, b, c, d, e, f = 0, high = 0, low = 0] = address.parts;
	if (a !== 0 || b !== 0 || c !== 0 || d !== 0 || e !== 0) return null;
	if (f === 0xffff || (f === 0 && high >> 8 !== 0)) {
		return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
	}
	return null;
}

/** An IPv6 address that stands for an IPv4 address comes back as that IPv4 address. */
function parseIPv6(text: string): Address | null {
	// Catching parse()'s error rather than asking isValid() first parses once, not twice.
	let address: ipaddr.IPv6;
	try {
		address = ipaddr.IPv6.parse(withHexTail(text));
	} catch {
		return null;
	}
	return embeddedIPv4(address) ?? address;
}

/**
 * An IPv6 text whose last 32 bits are a dotted quad, with those bits in hex
 * instead ("::1.2.3.4" → "::102:304"); a text without one as it is; "" when
 * the quad is not a strict one. ipaddr.js reads an embedded quad as leniently
 * as a bare IPv4 address ("::ffff:0x7f.0.0.1"), and reads "::1.2.3.4" as
 * "::ffff:1.2.3.4", another address than "::102:304".
 */
function withHexTail(text: string): string {
	if (!text.includes(".")) return text;
	const colon = text.lastIndexOf(":");
	const quad = parseIPv4(text.slice(colon + 1));
	if (quad === null) return "";
	const [a = 0, b = 0, c = 0, d = 0] = quad.octets;
	return `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Parses an address strictly: dotted-quad IPv4 or IPv6, never the legacy
 * IPv4 forms ("127.1", "0x7f.0.0.1") that ipaddr.js would also accept, so a
 * header cannot name one address in several spellings. Returns null for
 * anything else.
 */
function parseAddress(text: string): Address | null {
	// Dispatching on ":" spares ipaddr.js's exception-driven validation of the
	// wrong family.
	return text.includes(":") ? parseIPv6(text) : parseIPv4(text);
}

/** Whether text from start on is a port: 1 to 5 digits, at most 65535. */
function isPort(text: string, start: number): boolean {
	const length = text.length - start;
	if (length < 1 || length > 5) return false;
	let port = 0;
	for (let i = start; i < text.length; i++) {
		const digit = text.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) return false;
		port = port * 10 + digit;
	}
	return port <= 65535;
}

const OPEN_BRACKET = 91;
const COLON = 58;

/**
 * Parses one X-Forwarded-For entry: an address as parseAddress() takes it,
 * an IPv4 address with a port ("203.0.113.7:51234") or a bracketed IPv6
 * address with or without one ("[2001:db8::1]:443"), as some proxies write
 * it. The port is dropped: keyed with it, every connection of one client
 * would count apart. Returns null for anything else.
 */
function parseForwardedAddress(text: string): Address | null {
	if (text.charCodeAt(0) === OPEN_BRACKET) {
		const close = text.indexOf("]", 1);
		if (close === -1) return null;
		if (close + 1 < text.length && !(text.charCodeAt(close + 1) === COLON && isPort(text, close + 2))) {
			return null;
		}
		const inner = text.slice(1, close);
		// Brackets only ever hold IPv6 (RFC 3986, RFC 7239); "[203.0.113.7]" is no spelling of an address.
		return inner.includes(":") ? parseIPv6(inner) : null;
	}
	const colon = text.indexOf(":");
	if (colon === -1) return parseIPv4(text);
	// IPv6 always has two colons or more, so a single one can only precede a port.
	if (text.indexOf(":", colon + 1) !== -1) return parseIPv6(text);
	return isPort(text, colon + 1) ? parseIPv4(text.slice(0, colon)) : null;
}

function parseRange(entry: string): Range<Address> {
	if (!entry.includes("/")) {
		const address = parseAddress(entry);
		if (address === null) throw new Error(`not an IP address: "${entry}"`);
		return [address, address instanceof ipaddr.IPv4 ? 32 : 128];
	}
	if (ipaddr.IPv4.isValidCIDRFourPartDecimal(entry)) {
		return ipaddr.IPv4.parseCIDR(entry);
	}
	const slash = entry.lastIndexOf("/");
	let address: ipaddr.IPv6;
	let bits: number;
	try {
		[address, bits] = ipaddr.IPv6.parseCIDR(withHexTail(entry.slice(0, slash)) + entry.slice(slash));
	} catch {
		throw new Error(`not an IP address or CIDR range: "${entry}"`);
	}
	// Clients' IPv4-mapped and IPv4-compatible addresses are matched as IPv4,
	// so such a range ("::ffff:10.0.0.0/104", "::10.0.0.0/104") must become
	// the IPv4 range it covers. A compatible range shorter than /104 also
	// covers ::1 and the like, which stay IPv6: it is matched as IPv6.
	const ipv4 = embeddedIPv4(address);
	const minimumBits = address.isIPv4MappedAddress() ? 96 : 104;
	if (ipv4 !== null && bits >= minimumBits) return [ipv4, bits - 96];
	return [address, bits];
}

/** Trusted proxy ranges, parsed once from TRUST_PROXY. */
export interface TrustedProxies {
	/** The entries as written, for messages and logs. */
	entries: string[];
	ranges: Range<Address>[];
}

/**
 * Parses TRUST_PROXY: comma-separated IPv4/IPv6 addresses and CIDR ranges.
 * Throws an Error naming the first bad entry.
 */
export function parseTrustProxy(value: string | undefined): TrustedProxies {
	const entries = (value ?? "")
		.split(",")
		.map((entry) => entry.trim())
		.filter((entry) => entry !== "");
	const ranges = entries.map((entry) => {
		try {
			return parseRange(entry);
		} catch (error) {
			throw new Error(`TRUST_PROXY: ${errorMessage(error)}`);
		}
	});
	return { entries, ranges };
}

/** IPv4 keys by address, IPv6 by its /64, since one host usually holds a whole /64. */
function keyOf(address: Address): string {
	if (address instanceof ipaddr.IPv4) return address.toString();
	const parts = address.parts;
	const network = new ipaddr.IPv6([parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 0, 0, 0, 0, 0]);
	return `${network.toRFC5952String()}/64`;
}

export function createClientKeyResolver(trusted: TrustedProxies): ClientKeyResolver {
	const v4: Range<ipaddr.IPv4>[] = [];
	const v6: Range<ipaddr.IPv6>[] = [];
	for (const [address, bits] of trusted.ranges) {
		if (address instanceof ipaddr.IPv4) v4.push([address, bits]);
		else v6.push([address, bits]);
	}

	// ipaddr.js throws when matching across families, hence one list for each.
	const isTrusted = (address: Address): boolean => {
		const ranges: Range<Address>[] = address instanceof ipaddr.IPv4 ? v4 : v6;
		for (const range of ranges) if (address.match(range)) return true;
		return false;
	};

	return (peerAddress, forwardedFor) => {
		const peer = parseAddress(peerAddress);
		// The socket address comes from the runtime and is always valid; should it
		// ever not be, its raw text is still a stable per-peer key.
		if (peer === null) return peerAddress;
		if (forwardedFor === null || !isTrusted(peer)) return keyOf(peer);

		// Walk X-Forwarded-For from the right: each trusted hop vouches for the
		// entry to its left, and the first untrusted one is the client. A
		// malformed entry is untrusted, so the walk ends there, but it cannot be
		// keyed: the nearest valid hop to its right (the one that passed it on)
		// is used, which keeps the key a real address and a forged header
		// unable to pick arbitrary keys.
		// Slicing from the right, rather than split(), keeps a long header from
		// costing more than the hops actually walked.
		let client = peer;
		let end = forwardedFor.length;
		for (;;) {
			const comma = end === 0 ? -1 : forwardedFor.lastIndexOf(",", end - 1);
			const hop = parseForwardedAddress(forwardedFor.slice(comma + 1, end).trim());
			if (hop === null) break;
			client = hop;
			if (!isTrusted(hop) || comma === -1) break;
			end = comma;
		}
		return keyOf(client);
	};
}
