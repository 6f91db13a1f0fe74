import type { RedisClient } from "./redis-client.ts";

const RECONNECT_DELAY_MS = 250;

/**
 * Connects `client` again, a moment after it ends without having been closed;
 * returns the function to call before closing it.
 *
 * ioredis 6.0.0 in sentinel mode ends its client for good (status "end", no
 * reconnect ever) when a `+switch-master` reaches the failover detector of the
 * lost connection while the client is still asking a sentinel where the new
 * master is: the detector's disconnect makes that ask throw "Connection is
 * closed." and the client takes it as final. Without this, a Sentinel failover
 * could leave the count in process memory until the process restarts
 * (docs/decisions.md, "Workarounds").
 */
export function reconnectAfterUnexpectedEnd(client: RedisClient): () => void {
	let closing = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	client.on("end", () => {
		if (closing) return;
		timer = setTimeout(() => {
			if (!closing) client.connect().catch(() => {});
		}, RECONNECT_DELAY_MS);
	});
	return () => {
		closing = true;
		clearTimeout(timer);
	};
}
