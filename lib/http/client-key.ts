import type { ClientKeyResolver } from "../net/index.ts";

/** The server an Elysia hook is given, which knows each request's TCP peer. */
export type Peer = { requestIP(request: Request): { address: string } | null } | null | undefined;

/** The per-request answer state of Elysia, which carries the key once resolved. */
interface KeyedSet {
	clientKey?: string;
}

/**
 * The request's client key (its rate-limit key) from the TCP peer and
 * X-Forwarded-For, resolved once per request: the rate limit and the access
 * log both need it, and parsing the addresses is a good part of an answer.
 */
export function clientKeyOf(resolve: ClientKeyResolver, request: Request, set: object, server: Peer): string {
	const keyed = set as KeyedSet;
	if (keyed.clientKey === undefined) {
		const peer = server?.requestIP(request)?.address ?? "";
		keyed.clientKey = resolve(peer, request.headers.get("x-forwarded-for"));
	}
	return keyed.clientKey;
}
