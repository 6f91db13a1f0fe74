import type { Logger } from "../log/index.ts";
import { errorMessage } from "../util/index.ts";
import type { MemoryWindowLimiter } from "./memory-window.ts";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.ts";

/** The Redis side as the failover sees it; RedisWindowLimiter fits. */
export interface RedisBackend extends RateLimiter {
	/** The ioredis connection status; only "ready" is worth a round trip. */
	readonly status: string;
	/** Why the last connection attempt failed, for the operator; null once connected. */
	readonly lastConnectionError: string | null;
}

export interface FailoverOptions {
	redis: RedisBackend;
	memory: MemoryWindowLimiter;
	/** Gets one line per switch between Redis and memory. */
	logger: Logger;
	/**
	 * After Redis failed while still connected (slow, or answering errors),
	 * how long to count in memory before a request tries Redis again.
	 */
	retryDelayMs?: number;
}

const DEFAULT_RETRY_DELAY_MS = 1000;

/**
 * Counts in Redis while it answers and in process memory while it does not,
 * so a Redis outage never fails or delays a request beyond one command timeout.
 *
 * A disconnected client is detected from its status without a round trip.
 * While in memory, a single request at a time ("the probe") tries Redis, and
 * only the probe's success switches back; replies of requests sent before
 * the switch cannot make the mode flap.
 */
export class FailoverLimiter implements RateLimiter {
	private readonly redis: RedisBackend;
	private readonly memory: MemoryWindowLimiter;
	private readonly logger: Logger;
	private readonly retryDelayMs: number;
	private inMemory = false;
	private probing = false;
	/** On the monotonic clock: a wall clock stepped back must not put the retry off by the step. */
	private retryAt = 0;
	private switches = 0;
	private standIns = 0;

	constructor(options: FailoverOptions) {
		this.redis = options.redis;
		this.memory = options.memory;
		this.logger = options.logger;
		this.retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
	}

	/**
	 * Which store counts the next request, for readiness, metrics and tests.
	 * A lost connection shows at once: the switch itself waits for a request,
	 * and an idle instance must not claim a count in Redis it cannot make.
	 */
	get backend(): "redis" | "memory" {
		return this.inMemory || this.redis.status !== "ready" ? "memory" : "redis";
	}

	/** Switches from Redis to memory since start. */
	get fallbacks(): number {
		return this.switches;
	}

	/** Requests counted in memory because Redis could not count them, since start. */
	get countedInMemory(): number {
		return this.standIns;
	}

	async consume(key: string): Promise<RateLimitDecision> {
		if (this.redis.status !== "ready") {
			const cause = this.redis.lastConnectionError;
			this.fallBack(`connection ${this.redis.status}${cause === null ? "" : `: ${cause}`}`);
			return this.standIn(key);
		}
		const isProbe = this.inMemory;
		if (isProbe) {
			if (this.probing || performance.now() < this.retryAt) return this.standIn(key);
			this.probing = true;
		}
		try {
			const decision = await this.redis.consume(key);
			if (isProbe) {
				this.probing = false;
				this.inMemory = false;
				this.logger.info("rate limit: Redis is reachable again; counting in Redis");
			}
			return decision;
		} catch (error) {
			if (isProbe) this.probing = false;
			this.retryAt = performance.now() + this.retryDelayMs;
			this.fallBack(errorMessage(error));
			return this.standIn(key);
		}
	}

	private standIn(key: string): RateLimitDecision {
		this.standIns++;
		return this.memory.hit(key);
	}

	async close(): Promise<void> {
		await Promise.all([this.redis.close(), this.memory.close()]);
	}

	private fallBack(reason: string): void {
		if (this.inMemory) return;
		this.inMemory = true;
		this.switches++;
		this.logger.warn(
			{ reason },
			"rate limit: Redis unavailable; counting in process memory until it is back",
		);
	}
}
