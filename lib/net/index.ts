// Client addresses: strict parsing, trusted proxies, the rate-limit key, the client's network for logs.
export {
	type ClientKeyResolver,
	createClientKeyResolver,
	parseTrustProxy,
	type TrustedProxies,
} from "./client-address.ts";
export { clientNetworkOf } from "./client-network.ts";
