import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { RedisConnection } from "../config.ts";

export interface RedisClientOptions {
	/** Longest wait for one reply before the caller counts in memory instead. */
	commandTimeoutMs?: number;
}

/** A single-node, sentinel-mode or cluster client: what the count needs of each is the same. */
export type RedisClient = Redis | Cluster;

const DEFAULT_COMMAND_TIMEOUT_MS = 100;

/**
 * Options of every connection, tuned so that a slow or absent Redis costs a
 * request at most one short timeout. ioredis 6's defaults queue commands while
 * disconnected, retry each one up to 20 times and back off to 5 s between
 * reconnects, which would hold a request for tens of seconds.
 */
function connectionOptions(options: RedisClientOptions): RedisOptions {
	return {
		commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
		// Fail at once while disconnected instead of waiting for a reconnect.
		enableOfflineQueue: false,
		// Reject in-flight commands as soon as the connection drops.
		maxRetriesPerRequest: 0,
		// The request was already answered from memory; a resent INCR would count it twice.
		autoResendUnfulfilledCommands: false,
		// A silent (firewalled) host should not keep the client "connecting" for 10 s.
		connectTimeout: 1000,
		// Keep trying forever, at most a second apart, so Redis is picked up soon after it returns.
		retryStrategy: (times) => Math.min(times * 100, 1000),
	};
}

/** TLS with the operator's CA bundle trusted, when one is given. */
function tlsOptions(ca: string | null): { tls?: { ca: string } } {
	return ca === null ? {} : { tls: { ca } };
}

/** A client of a Redis Cluster, of its seed nodes. */
function clusterClient(
	connection: Extract<RedisConnection, { mode: "cluster" }>,
	options: RedisClientOptions,
) {
	return new Cluster(connection.nodes, {
		enableOfflineQueue: false,
		enableAutoPipelining: true,
		// Every count is read and written on its key's master.
		scaleReads: "master",
		// A command to a slot whose master is being failed over is not
		// held: the request is counted in memory at once instead.
		retryDelayOnFailover: 0,
		retryDelayOnClusterDown: 0,
		retryDelayOnTryAgain: 0,
		// With no retry on failover, nothing else tells the client which
		// replica took over a dead master's slots: ask the cluster every second.
		slotsRefreshInterval: 1000,
		clusterRetryStrategy: (times) => Math.min(times * 100, 1000),
		redisOptions: {
			...connectionOptions(options),
			...tlsOptions(connection.tlsCa),
			username: connection.username ?? undefined,
			password: connection.password ?? undefined,
		},
	});
}

/**
 * A client of the connection's mode. It connects at once (not lazily):
 * connecting on the first command would fail that command, because the
 * offline queue is off. Until the connection is ready, callers see
 * status !== "ready" and count in memory.
 */
export function createRedisClient(
	connection: RedisConnection,
	options: RedisClientOptions = {},
): RedisClient {
	const common = {
		...connectionOptions(options),
		// Requests arriving together share one write to Redis instead of one
		// system call each: a CPU profile under load put 36 % of the server's
		// time in those writes.
		enableAutoPipelining: true,
	};
	let client: RedisClient;
	switch (connection.mode) {
		case "single":
			// The URL carries host, port, database, user and password; rediss:// turns TLS on.
			client = new Redis(connection.url, { ...common, ...tlsOptions(connection.tlsCa) });
			break;
		case "sentinel":
			client = new Redis({
				...common,
				...tlsOptions(connection.tlsCa),
				sentinels: connection.sentinels,
				name: connection.master,
				username: connection.username ?? undefined,
				password: connection.password ?? undefined,
				...(connection.tlsCa === null
					? {}
					: { enableTLSForSentinelMode: true, sentinelTLS: { ca: connection.tlsCa } }),
				// Sentinels are asked again soon after the master is lost, and
				// told of a failover as it happens, not at the next reconnect.
				sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
				failoverDetector: true,
			});
			break;
		case "cluster":
			client = clusterClient(connection, options);
			break;
	}
	// Failures surface as rejected commands and are reported by the caller once
	// per switch; without a listener ioredis would print every reconnect attempt.
	client.on("error", () => {});
	return client;
}
