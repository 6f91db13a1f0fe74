/** The outcome of counting one request against its key's fixed window. */
export interface RateLimitDecision {
	allowed: boolean;
	limit: number;
	/** Requests left in the window after this one (0 when refused). */
	remaining: number;
	/** End of the window, Unix seconds (rounded up). */
	resetAt: number;
	/** Whole seconds until the window ends, at least 1. */
	retryAfter: number;
}

/** A fixed-window counter shared by every endpoint. */
export interface RateLimiter {
	consume(key: string): Promise<RateLimitDecision>;
	close(): Promise<void>;
}
