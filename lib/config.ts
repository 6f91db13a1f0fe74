/**
 * Configuration comes only from the environment and is validated once at start;
 * a bad value is a ConfigError naming the variable, never a stack trace.
 */

import { readFileSync } from "node:fs";
import {
	COMMIT_SOURCES,
	type CommitSource,
	DEFAULT_BUSY_TIMEOUT_MS,
	MAX_BUSY_TIMEOUT_MS,
} from "./db/index.ts";
import { parseTrustProxy, type TrustedProxies } from "./net/index.ts";
import { errorMessage } from "./util/index.ts";

export class ConfigError extends Error {}

/** pino's levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
	port: number;
	host: string;
	/** Whether another process may listen on the same port (SO_REUSEPORT). */
	reusePort: boolean;
	adminPort: number;
	adminHost: string;
	logLevel: LogLevel;
	/** Longest wait for answers already accepted when the server is told to stop. */
	shutdownTimeoutSeconds: number;
	/** How long the server keeps accepting after readiness turned 503, for balancers that route by readiness. */
	shutdownDelaySeconds: number;
	databasePath: string;
	/** DATABASE_URL: a PostgreSQL server (postgres://...) that holds the faxes instead of DATABASE_PATH; null for SQLite. */
	databaseUrl: string | null;
	/**
	 * DATABASE_WRITE_URL: where every write transaction goes (the cluster's
	 * primary route), while reads stay on DATABASE_URL (this node's own); null:
	 * DATABASE_URL takes both.
	 */
	databaseWriteUrl: string | null;
	storageDir: string;
	cdnBaseUrl: string;
	siteBaseUrl: string;
	/** A download under /cdn/ answers 503 while this many requests are in flight. */
	cdnMaxDownloads: number;
	/** Bun closes a public connection on which nothing moved for this long (a stalled download's too). */
	idleTimeoutSeconds: number;
	/** Where the shared rate-limit count lives; null counts in this process. */
	redis: RedisConnection | null;
	redisTimeoutMs: number;
	/** RATE_LIMIT_PER_MINUTE: requests per window, and the window is a minute unless a test shortens it. */
	rateLimitPerWindow: number;
	rateLimitWindowSeconds: number;
	rateLimitPrefix: string;
	trustProxy: TrustedProxies;
	seedDemo: boolean;
	purgeIntervalSeconds: number;
	/** BUSY_TIMEOUT_MS: how long a write waits while another process writes. */
	busyTimeoutMs: number;
	/** FRESHNESS_CHECK: how each request learns of other processes' commits. */
	freshnessCheck: CommitSource;
	/** WAIT_MAX_HELD: list requests with `wait` one instance holds at once; past it they are answered at once. */
	waitMaxHeld: number;
	/** WAIT_MAX_HELD_PER_CLIENT: the same for one client key on one instance. */
	waitMaxHeldPerClient: number;
	/** RECEIVER_RECVQ: HylaFAX's receive queue, watched for /metrics; null when not set. */
	receiverRecvq: string | null;
	/** RECEIVER_POSTQUEUE: Postfix's postqueue command, asked for /metrics; null when not set. */
	receiverPostqueue: string | null;
	/** DNS_SERVERS: the resolvers an email test's SPF, DKIM and DMARC checks ask; null: the host's. */
	dnsServers: string[] | null;
	/** Where testers send their tests: the site's numbers and addresses, shown on the pages. */
	sendTo: SendTo;
}

/** TEST_FAX_NUMBERS (calls), TEST_FAX_ADDRESSES (scan-to-email and T.37): comma-separated, possibly none. */
export interface SendTo {
	numbers: string[];
	addresses: string[];
}

const FAX_NUMBER = /^\+?[0-9][0-9 ()./-]{2,30}$/;
const EMAIL_ADDRESS = /^[^\s@<>",;]{1,64}@[^\s@<>",;]{1,190}\.[^\s@<>",;.]{2,63}$/;
// `192.0.2.53:53`, `[2001:db8::53]:53`: an address and its port, as DNS_SERVERS lists them.
const DNS_SERVER = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/;

/** DNS_SERVERS: the resolvers an email test's authentication asks; null: the host's own. */
function dnsServers(env: Env): string[] | null {
	const servers = list(
		env,
		"DNS_SERVERS",
		DNS_SERVER,
		"host:port pairs like 192.0.2.53:53 or [2001:db8::53]:53",
	);
	return servers.length === 0 ? null : servers;
}

function list(env: Env, name: string, pattern: RegExp, shape: string): string[] {
	const items = (value(env, name) ?? "")
		.split(",")
		.map((item) => item.trim())
		.filter((item) => item !== "");
	const bad = items.find((item) => !pattern.test(item));
	if (bad !== undefined) throw new ConfigError(`${name} must be ${shape}, separated by commas; got "${bad}"`);
	return items;
}

export interface RedisNode {
	host: string;
	port: number;
}

/**
 * The Redis of the shared count, in one of three modes. `tlsCa` is the PEM
 * text of REDIS_TLS_CA_FILE: trusted for a `rediss://` URL, and in cluster
 * and sentinel modes it turns TLS on.
 */
export type RedisConnection =
	| { mode: "single"; url: string; tlsCa: string | null }
	| {
			mode: "cluster";
			nodes: RedisNode[];
			username: string | null;
			password: string | null;
			tlsCa: string | null;
	  }
	| {
			mode: "sentinel";
			sentinels: RedisNode[];
			master: string;
			username: string | null;
			password: string | null;
			tlsCa: string | null;
	  };

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | undefined {
	const raw = env[name]?.trim();
	return raw === "" ? undefined : raw;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
	const raw = value(env, name);
	if (raw === undefined) return fallback;
	if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
		throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
	}
	return Number(raw);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
	const raw = value(env, name);
	if (raw === undefined) return fallback;
	if (raw === "1" || raw === "true") return true;
	if (raw === "0" || raw === "false") return false;
	throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

function databaseUrl(env: Env, name: "DATABASE_URL" | "DATABASE_WRITE_URL"): string | null {
	const raw = value(env, name);
	if (raw === undefined) return null;
	if (!/^postgres(ql)?:\/\/./.test(raw)) {
		throw new ConfigError(`${name} must be a PostgreSQL URL (postgres://user@host:port/database)`);
	}
	return raw;
}

/** DATABASE_WRITE_URL: only beside DATABASE_URL, whose node it adds the primary's route to. */
function databaseWriteUrl(env: Env, reads: string | null): string | null {
	const writes = databaseUrl(env, "DATABASE_WRITE_URL");
	if (writes !== null && reads === null)
		throw new ConfigError("DATABASE_WRITE_URL needs DATABASE_URL beside it (the database reads go to)");
	return writes;
}

function logLevel(env: Env): LogLevel {
	const raw = value(env, "LOG_LEVEL") ?? "info";
	const level = LOG_LEVELS.find((name) => name === raw);
	if (level === undefined)
		throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"`);
	return level;
}

function freshnessCheck(env: Env): CommitSource {
	const raw = value(env, "FRESHNESS_CHECK") ?? "wal-index";
	const source = COMMIT_SOURCES.find((name) => name === raw);
	if (source === undefined) {
		throw new ConfigError(`FRESHNESS_CHECK must be one of ${COMMIT_SOURCES.join(", ")}, got "${raw}"`);
	}
	return source;
}

function baseUrl(env: Env, name: string, fallback: string): string {
	const raw = value(env, name) ?? fallback;
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
	}
	return raw.replace(/\/+$/, "");
}

function redisNodes(env: Env, name: string): RedisNode[] {
	const raw = value(env, name) ?? "";
	return raw.split(",").map((entry) => {
		const match = /^\[?([^\s\]]+?)\]?:(\d{1,5})$/.exec(entry.trim());
		const port = Number(match?.[2]);
		if (match === null || port < 1 || port > 65535) {
			throw new ConfigError(`${name} must be comma-separated host:port pairs, got "${raw}"`);
		}
		return { host: match[1] ?? "", port };
	});
}

function tlsCa(env: Env): string | null {
	const file = value(env, "REDIS_TLS_CA_FILE");
	if (file === undefined) return null;
	try {
		const pem = readFileSync(file, "utf8");
		if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw new Error("no PEM certificate in it");
		return pem;
	} catch (error) {
		throw new ConfigError(
			`REDIS_TLS_CA_FILE must be a readable PEM bundle, got "${file}": ${errorMessage(error)}`,
		);
	}
}

const REDIS_MODES = ["REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS"] as const;

/** The Redis of the shared count: exactly one mode, its settings complete, nothing of another mode. */
function redisConnection(env: Env): RedisConnection | null {
	const given = REDIS_MODES.filter((name) => value(env, name) !== undefined);
	if (given.length > 1) {
		throw new ConfigError(`${given.join(" and ")} are set: choose one Redis mode`);
	}
	const master = value(env, "REDIS_SENTINEL_MASTER");
	if (master !== undefined && given[0] !== "REDIS_SENTINELS") {
		throw new ConfigError("REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS");
	}
	const username = value(env, "REDIS_USERNAME") ?? null;
	const password = value(env, "REDIS_PASSWORD") ?? null;
	const ca = tlsCa(env);
	const mode = given[0];
	const credentials = ["REDIS_USERNAME", "REDIS_PASSWORD"].filter((name) => value(env, name) !== undefined);
	if (credentials.length > 0 && (mode === undefined || mode === "REDIS_URL")) {
		throw new ConfigError(
			mode === undefined
				? `${credentials.join(" and ")} ${credentials.length === 1 ? "needs" : "need"} REDIS_CLUSTER_NODES or REDIS_SENTINELS`
				: `${credentials.join(" and ")} ${credentials.length === 1 ? "is" : "are"} for cluster and sentinel modes: put the credentials in REDIS_URL`,
		);
	}
	if (mode === undefined) {
		if (ca !== null) throw new ConfigError("REDIS_TLS_CA_FILE is set without a Redis to trust it for");
		return null;
	}
	switch (mode) {
		case "REDIS_URL": {
			const url = value(env, "REDIS_URL") ?? "";
			if (!/^rediss?:\/\//.test(url) || !URL.canParse(url)) {
				throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${url}"`);
			}
			if (ca !== null && !url.startsWith("rediss://")) {
				throw new ConfigError("REDIS_TLS_CA_FILE is for a rediss:// REDIS_URL, and REDIS_URL is redis://");
			}
			return { mode: "single", url, tlsCa: ca };
		}
		case "REDIS_CLUSTER_NODES":
			return {
				mode: "cluster",
				nodes: redisNodes(env, "REDIS_CLUSTER_NODES"),
				username,
				password,
				tlsCa: ca,
			};
		default:
			if (master === undefined)
				throw new ConfigError("REDIS_SENTINELS needs REDIS_SENTINEL_MASTER, the master's name");
			return {
				mode: "sentinel",
				sentinels: redisNodes(env, "REDIS_SENTINELS"),
				master,
				username,
				password,
				tlsCa: ca,
			};
	}
}

function trustProxy(env: Env): TrustedProxies {
	try {
		return parseTrustProxy(value(env, "TRUST_PROXY"));
	} catch (error) {
		throw new ConfigError(errorMessage(error));
	}
}

export function loadConfig(env: Env): Config {
	const port = integer(env, "PORT", 3000, 0, 65535);
	const localBase = `http://localhost:${port}`;
	return {
		port,
		host: value(env, "HOST") ?? "0.0.0.0",
		reusePort: flag(env, "REUSE_PORT", false),
		adminPort: integer(env, "ADMIN_PORT", 3001, 0, 65535),
		// Probes and metrics are for the operator: only this machine reaches them unless asked.
		adminHost: value(env, "ADMIN_HOST") ?? "127.0.0.1",
		logLevel: logLevel(env),
		shutdownTimeoutSeconds: integer(env, "SHUTDOWN_TIMEOUT_SECONDS", 10, 1, 3600),
		shutdownDelaySeconds: integer(env, "SHUTDOWN_DELAY_SECONDS", 0, 0, 3600),
		databasePath: value(env, "DATABASE_PATH") ?? "data/faxes.sqlite",
		databaseUrl: databaseUrl(env, "DATABASE_URL"),
		databaseWriteUrl: databaseWriteUrl(env, databaseUrl(env, "DATABASE_URL")),
		storageDir: value(env, "STORAGE_DIR") ?? "data/storage",
		cdnBaseUrl: baseUrl(env, "CDN_BASE_URL", `${localBase}/cdn`),
		siteBaseUrl: baseUrl(env, "SITE_BASE_URL", localBase),
		cdnMaxDownloads: integer(env, "CDN_MAX_DOWNLOADS", 512, 1, 100_000),
		// Bun takes at most 255 s.
		idleTimeoutSeconds: integer(env, "IDLE_TIMEOUT_SECONDS", 30, 1, 255),
		redis: redisConnection(env),
		redisTimeoutMs: integer(env, "REDIS_TIMEOUT_MS", 100, 1, 60_000),
		rateLimitPerWindow: integer(env, "RATE_LIMIT_PER_MINUTE", 60, 1, 1_000_000_000),
		rateLimitWindowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1, 3600),
		rateLimitPrefix: value(env, "RATE_LIMIT_PREFIX") ?? "testfax:rl:",
		trustProxy: trustProxy(env),
		// A production image starts empty; demo faxes are for trying the service out.
		seedDemo: flag(env, "SEED_DEMO", value(env, "NODE_ENV") !== "production"),
		// Timers hold at most 2^31 - 1 ms; a longer interval would fire at once, in a loop.
		purgeIntervalSeconds: integer(env, "PURGE_INTERVAL", 3600, 0, 2_147_483),
		busyTimeoutMs: integer(env, "BUSY_TIMEOUT_MS", DEFAULT_BUSY_TIMEOUT_MS, 0, MAX_BUSY_TIMEOUT_MS),
		freshnessCheck: freshnessCheck(env),
		waitMaxHeld: integer(env, "WAIT_MAX_HELD", 10_000, 0, 1_000_000),
		waitMaxHeldPerClient: integer(env, "WAIT_MAX_HELD_PER_CLIENT", 10, 0, 1_000_000),
		receiverRecvq: value(env, "RECEIVER_RECVQ") ?? null,
		receiverPostqueue: value(env, "RECEIVER_POSTQUEUE") ?? null,
		dnsServers: dnsServers(env),
		sendTo: {
			numbers: list(env, "TEST_FAX_NUMBERS", FAX_NUMBER, "phone numbers like +1 555 010 0100"),
			addresses: list(env, "TEST_FAX_ADDRESSES", EMAIL_ADDRESS, "email addresses like fax@testfax.example"),
		},
	};
}
