import { noneMatchHits, preferredCoding, type Representation } from "../representation/index.ts";

interface AnswerSet {
	status?: number | string;
	headers: Record<string, string | number>;
}

/**
 * The body of a 200 whose content is `representation`, with its fields: the
 * ETag, `Vary: Accept-Encoding`, and the content coding the request accepts
 * (RFC 9110 sections 8.8.3, 12.5.5, 12.5.3). To an `If-None-Match` naming the
 * ETag it is a 304 with no body and no content fields, after the rate limit
 * counted the request like any other. Another status (a 404 or 410 page) has
 * no current representation of its target: no ETag, and no 304 (RFC 9110
 * section 13.1.2), only its coding.
 */
export function negotiatedBody(
	representation: Representation,
	request: Request,
	set: AnswerSet,
	type: string,
): string | Blob | Uint8Array {
	const current = set.status === 200;
	const etag = representation.etag;
	if (current && noneMatchHits(request.headers.get("if-none-match"), etag)) {
		set.status = 304;
		set.headers.etag = etag;
		set.headers.vary = "Accept-Encoding";
		return "";
	}
	set.headers["content-type"] = type;
	if (current) set.headers.etag = etag;
	set.headers.vary = "Accept-Encoding";
	const coding = preferredCoding(request.headers.get("accept-encoding"));
	const encoded = coding === null ? null : representation.encoded(coding);
	if (coding === null || encoded === null) return representation.identity;
	set.headers["content-encoding"] = coding;
	return encoded;
}
