// RFC 9112 3.2: Host = uri-host [ ":" port ], uri-host from RFC 3986 3.2.2:
// an IP literal in brackets (IPv6 or IPvFuture), or a reg-name (which covers
// IPv4 addresses), possibly empty.
const UNRESERVED_OR_SUB_DELIM = "A-Za-z0-9\\-._~!$&'()*+,;=";
const IP_LITERAL = `\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${UNRESERVED_OR_SUB_DELIM}:]+)\\]`;
const REG_NAME = `(?:[${UNRESERVED_OR_SUB_DELIM}]|%[0-9A-Fa-f]{2})*`;
const HOST_FIELD = new RegExp(`^(?:${IP_LITERAL}|${REG_NAME})(?::[0-9]*)?$`);

/**
 * Whether a request's Host is one valid field value. Bun joins repeated
 * lines with ", ", which no valid value contains. A request without Host
 * (HTTP/1.0) has none to be wrong.
 */
export function isValidHostField(host: string | null): boolean {
	return host === null || HOST_FIELD.test(host);
}
