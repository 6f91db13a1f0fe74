import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range<T> = [T, number];

/** Resolves the rate-limit key from the TCP peer and X-Forwarded-For. */
export type ClientKeyResolver = (peerAddress: string, forwardedFor: string | null) => string;

/**
 * Parses an address strictly: dotted-quad IPv4 or IPv6, never the legacy
 * IPv4 forms ("127.1", "0x7f.0.0.1") that ipaddr.js would also accept, so a
 * header cannot name one address in several spellings. IPv4-mapped IPv6 comes
 * back as its IPv4 address. Returns null for anything else.
 */
function parseAddress(text: string): Address | null {
	// Dispatching on ":" spares ipaddr.js's exception-driven validation of the
	// wrong family; IPv6 is parsed once, as isValid() would parse it too.
	if (!text.includes(":")) {
		return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
	}
	let address: ipaddr.IPv6;
	try {
		address = ipaddr.IPv6.parse(text);
	} catch {
		return null;
	}
	return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
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
	if (!ipaddr.IPv6.isValidCIDR(entry)) {
		throw new Error(`not an IP address or CIDR range: "${entry}"`);
	}
	const [address, bits] = ipaddr.IPv6.parseCIDR(entry);
	// Clients' IPv4-mapped addresses are matched as IPv4, so an IPv4-mapped
	// range ("::ffff:10.0.0.0/104") must become the IPv4 range it covers.
	if (address.isIPv4MappedAddress() && bits >= 96) {
		return [address.toIPv4Address(), bits - 96];
	}
	return [address, bits];
}

/**
 * Parses TRUST_PROXY: comma-separated IPv4/IPv6 addresses and CIDR ranges.
 * Throws an Error naming the first bad entry.
 */
export function parseTrustProxy(value: string | undefined): string[] {
	if (value === undefined) return [];
	const entries = value
		.split(",")
		.map((entry) => entry.trim())
		.filter((entry) => entry !== "");
	for (const entry of entries) {
		try {
			parseRange(entry);
		} catch (error) {
			throw new Error(`TRUST_PROXY: ${error instanceof Error ? error.message : String(error)}`);
		}
	}
	return entries;
}

/** IPv4 keys by address, IPv6 by its /64, since one host usually holds a whole /64. */
function keyOf(address: Address): string {
	if (address instanceof ipaddr.IPv4) return address.toString();
	const parts = address.parts;
	const network = new ipaddr.IPv6([parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 0, 0, 0, 0, 0]);
	return `${network.toRFC5952String()}/64`;
}

export function createClientKeyResolver(trustProxy: string[]): ClientKeyResolver {
	const v4: Range<ipaddr.IPv4>[] = [];
	const v6: Range<ipaddr.IPv6>[] = [];
	for (const entry of trustProxy) {
		const [address, bits] = parseRange(entry);
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
			const hop = parseAddress(forwardedFor.slice(comma + 1, end).trim());
			if (hop === null) break;
			client = hop;
			if (!isTrusted(hop) || comma === -1) break;
			end = comma;
		}
		return keyOf(client);
	};
}
