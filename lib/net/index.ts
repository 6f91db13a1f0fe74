// Client addresses: strict parsing, trusted proxies, the rate-limit key.
export {
	type ClientKeyResolver,
	createClientKeyResolver,
	parseTrustProxy,
	type TrustedProxies,
} from "./client-address.ts";
