import type { RedisConnection } from "../config.ts";
import { decide } from "./decision.ts";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";
import { reconnectAfterUnexpectedEnd } from "./reconnect-after-end.ts";
import { createRedisClient, type RedisClient } from "./redis-client.ts";
import { RefusedKeys } from "./refused-keys.ts";

export interface RedisWindowOptions {
	connection: RedisConnection;
	limit: number;
	windowSeconds: number;
	/** Prepended to every key so deployments can share one Redis. */
	prefix: string;
	commandTimeoutMs?: number;
}

/**
 * One counted request: the count and the milliseconds left of the key's
 * window. A key without a TTL (new, or left by anything that failed to expire
 * it) gets one, so no window can outlive its length.
 */
export const HIT_SCRIPT = `
local count = redis.call("INCR", KEYS[1])
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then
	redis.call("PEXPIRE", KEYS[1], ARGV[1])
	ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

type WindowClient = RedisClient & {
	rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
};

/**
 * Fixed window counted in Redis: one atomic script call per request, but for
 * a key already refused in its window, which is refused from memory until
 * the window ends (RefusedKeys). Each count is one key touched by one
 * single-key script, so in cluster mode the counts spread over the slots and
 * every call goes to its key's master.
 */
export class RedisWindowLimiter implements RateLimiter {
	private readonly client: WindowClient;
	private readonly limit: number;
	private readonly windowMs: number;
	private readonly prefix: string;
	private readonly stopReconnecting: () => void;
	private readonly refused: RefusedKeys;
	private connectionError: string | null = null;

	constructor(options: RedisWindowOptions) {
		this.limit = options.limit;
		this.windowMs = options.windowSeconds * 1000;
		this.prefix = options.prefix;
		this.refused = new RefusedKeys(options.limit);
		const client = createRedisClient(options.connection, {
			commandTimeoutMs: options.commandTimeoutMs,
		});
		// defineCommand sends EVALSHA and falls back to EVAL when the server
		// lacks the script (first use on a connection, or after a restart).
		client.defineCommand("rateLimitHit", { lua: HIT_SCRIPT, numberOfKeys: 1 });
		this.client = client as WindowClient;
		this.stopReconnecting = reconnectAfterUnexpectedEnd(client);
		client.on("error", (error: Error) => {
			this.connectionError = describeConnectionError(error);
		});
		client.on("ready", () => {
			this.connectionError = null;
		});
	}

	get status(): string {
		return this.client.status;
	}

	/** Why the last connection attempt failed; null once connected. */
	get lastConnectionError(): string | null {
		return this.connectionError;
	}

	/** Resolves true once connected, or false after timeoutMs; never rejects. */
	whenReady(timeoutMs: number): Promise<boolean> {
		if (this.client.status === "ready") return Promise.resolve(true);
		return new Promise((resolve) => {
			const onReady = () => {
				clearTimeout(timer);
				resolve(true);
			};
			const timer = setTimeout(() => {
				this.client.off("ready", onReady);
				resolve(false);
			}, timeoutMs);
			this.client.once("ready", onReady);
		});
	}

	async consume(key: string): Promise<RateLimitDecision> {
		const refusal = this.refused.refusal(key);
		if (refusal !== null) return refusal;
		const sentAt = performance.now();
		const [count, msLeft] = await this.client.rateLimitHit(this.prefix + key, this.windowMs);
		const decision = decide(this.limit, count, Date.now(), msLeft);
		if (!decision.allowed) this.refused.remember(key, sentAt, msLeft);
		return decision;
	}

	async close(): Promise<void> {
		this.stopReconnecting();
		try {
			await this.client.quit();
		} catch {
			// Not connected (or too slow to answer QUIT): drop the socket and stop reconnecting.
			this.client.disconnect();
		}
	}
}

/**
 * The cause an operator can act on: a cluster client reports only that no
 * node gave it the slots, and keeps the node's own refusal (a missing ACL
 * permission, a wrong password) beside it.
 */
function describeConnectionError(error: Error): string {
	const nodeError = (error as Error & { lastNodeError?: unknown }).lastNodeError;
	return nodeError instanceof Error ? `${error.message} ${nodeError.message}` : error.message;
}
