import ipaddr from "ipaddr.js";

/**
 * The form of a client the log may keep: its IPv4 /24 or IPv6 /48, never the
 * full address (the last octet, or the last 80 bits, are dropped), from its
 * rate-limit key (an IPv4 address or an IPv6 /64).
 */
export function clientNetworkOf(key: string): string {
	if (!key.includes(":")) {
		const dot = key.lastIndexOf(".");
		return dot === -1 ? "unknown" : `${key.slice(0, dot)}.0/24`;
	}
	const slash = key.indexOf("/");
	const text = slash === -1 ? key : key.slice(0, slash);
	if (!ipaddr.IPv6.isValid(text)) return "unknown";
	const [a = 0, b = 0, c = 0] = ipaddr.IPv6.parse(text).parts;
	return `${new ipaddr.IPv6([a, b, c, 0, 0, 0, 0, 0]).toRFC5952String()}/48`;
}
