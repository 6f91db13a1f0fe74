import { describe, expect, test } from "bun:test";
import { type Config, ConfigError, loadConfig } from "../lib/config.ts";

type Env = Record<string, string | undefined>;

const DEFAULTS: Config = {
	port: 3000,
	host: "0.0.0.0",
	reusePort: false,
	adminPort: 3001,
	adminHost: "127.0.0.1",
	logLevel: "info",
	shutdownTimeoutSeconds: 10,
	shutdownDelaySeconds: 0,
	databasePath: "data/faxes.sqlite",
	storageDir: "data/storage",
	cdnBaseUrl: "http://localhost:3000/cdn",
	siteBaseUrl: "http://localhost:3000",
	cdnMaxDownloads: 512,
	idleTimeoutSeconds: 30,
	redis: null,
	redisTimeoutMs: 100,
	rateLimitPerWindow: 60,
	rateLimitWindowSeconds: 60,
	rateLimitPrefix: "testfax:rl:",
	trustProxy: { entries: [], ranges: [] },
	seedDemo: true,
	purgeIntervalSeconds: 3600,
	busyTimeoutMs: 30_000,
	freshnessCheck: "wal-index",
	databaseUrl: null,
	databaseWriteUrl: null,
	dnsServers: null,
	waitMaxHeld: 10_000,
	waitMaxHeldPerClient: 10,
	receiverRecvq: null,
	receiverPostqueue: null,
	sendTo: { numbers: [], addresses: [] },
};

function configError(env: Env): ConfigError {
	try {
		loadConfig(env);
	} catch (error) {
		if (error instanceof ConfigError) return error;
		throw error;
	}
	throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

/** TRUST_PROXY ranges as `address/bits`, to compare them as text. */
function rangesOf(config: Config): string[] {
	return config.trustProxy.ranges.map(([address, bits]) => `${address.toString()}/${bits}`);
}

describe("defaults", () => {
	test("an empty environment gives every default", () => {
		expect(loadConfig({})).toEqual(DEFAULTS);
	});

	test("unrelated variables change nothing", () => {
		expect(loadConfig({ PATH: "/usr/bin", NODE_ENV: "development", port: "1" })).toEqual(DEFAULTS);
	});

	test("the default base URLs follow PORT", () => {
		expect(loadConfig({ PORT: "8080" })).toEqual({
			...DEFAULTS,
			port: 8080,
			cdnBaseUrl: "http://localhost:8080/cdn",
			siteBaseUrl: "http://localhost:8080",
		});
	});

	test("blank values are unset", () => {
		const blank: Env = {};
		for (const name of [
			"PORT",
			"HOST",
			"DATABASE_PATH",
			"STORAGE_DIR",
			"CDN_BASE_URL",
			"SITE_BASE_URL",
			"REDIS_URL",
			"REDIS_TIMEOUT_MS",
			"RATE_LIMIT_PER_MINUTE",
			"RATE_LIMIT_WINDOW_SECONDS",
			"RATE_LIMIT_PREFIX",
			"TRUST_PROXY",
			"SEED_DEMO",
			"PURGE_INTERVAL",
			"BUSY_TIMEOUT_MS",
		]) {
			blank[name] = name.length % 2 === 0 ? "" : " \t ";
		}
		expect(loadConfig(blank)).toEqual(DEFAULTS);
		expect(loadConfig({ PORT: undefined, REDIS_URL: undefined })).toEqual(DEFAULTS);
	});
});

/** Every variable set, some with blanks around them that must be trimmed. */
const EVERY_VARIABLE: Env = {
	PORT: " 8443 ",
	HOST: "::",
	DATABASE_PATH: "/var/lib/testfax/faxes.sqlite",
	DATABASE_URL: " postgres://testfax@db.example.com:5432/faxes ",
	DATABASE_WRITE_URL: "postgres://testfax@127.0.0.1:5433/faxes",
	STORAGE_DIR: " /var/lib/testfax/storage ",
	CDN_BASE_URL: "https://cdn.example.com/files",
	SITE_BASE_URL: "https://www.example.com",
	CDN_MAX_DOWNLOADS: "64",
	IDLE_TIMEOUT_SECONDS: "5",
	REDIS_URL: "rediss://:secret@redis.example.com:6380/2",
	REDIS_TIMEOUT_MS: "250",
	RATE_LIMIT_PER_MINUTE: "120",
	RATE_LIMIT_WINDOW_SECONDS: "2",
	RATE_LIMIT_PREFIX: "staging:rl:",
	TRUST_PROXY: "10.0.0.0/8",
	SEED_DEMO: "0",
	PURGE_INTERVAL: "0",
	BUSY_TIMEOUT_MS: "2500",
	FRESHNESS_CHECK: "data_version",
	WAIT_MAX_HELD: "500",
	WAIT_MAX_HELD_PER_CLIENT: "0",
	RECEIVER_RECVQ: "/var/spool/hylafax/recvq",
	RECEIVER_POSTQUEUE: "/usr/sbin/postqueue",
	DNS_SERVERS: "127.0.0.1:5353, [::1]:53",
	TEST_FAX_NUMBERS: "+1 555 010 0100, +49 30 1234567",
	TEST_FAX_ADDRESSES: " fax@testfax.example ",
};

/** What EVERY_VARIABLE reads as. */
function everyValue(): Config {
	return {
		// The variables EVERY_VARIABLE leaves out keep their defaults.
		...DEFAULTS,
		port: 8443,
		host: "::",
		databasePath: "/var/lib/testfax/faxes.sqlite",
		databaseUrl: "postgres://testfax@db.example.com:5432/faxes",
		databaseWriteUrl: "postgres://testfax@127.0.0.1:5433/faxes",
		storageDir: "/var/lib/testfax/storage",
		cdnBaseUrl: "https://cdn.example.com/files",
		siteBaseUrl: "https://www.example.com",
		cdnMaxDownloads: 64,
		idleTimeoutSeconds: 5,
		redis: { mode: "single", url: "rediss://:secret@redis.example.com:6380/2", tlsCa: null },
		redisTimeoutMs: 250,
		rateLimitPerWindow: 120,
		rateLimitWindowSeconds: 2,
		rateLimitPrefix: "staging:rl:",
		trustProxy: loadConfig({ TRUST_PROXY: "10.0.0.0/8" }).trustProxy,
		seedDemo: false,
		purgeIntervalSeconds: 0,
		busyTimeoutMs: 2500,
		freshnessCheck: "data_version",
		waitMaxHeld: 500,
		waitMaxHeldPerClient: 0,
		receiverRecvq: "/var/spool/hylafax/recvq",
		receiverPostqueue: "/usr/sbin/postqueue",
		dnsServers: ["127.0.0.1:5353", "[::1]:53"],
		sendTo: { numbers: ["+1 555 010 0100", "+49 30 1234567"], addresses: ["fax@testfax.example"] },
	};
}

describe("values", () => {
	test("every variable is read, trimmed", () => {
		expect(loadConfig(EVERY_VARIABLE)).toEqual(everyValue());
	});

	test("rateLimitPerWindow comes from RATE_LIMIT_PER_MINUTE", () => {
		expect(loadConfig({ RATE_LIMIT_PER_MINUTE: "1" }).rateLimitPerWindow).toBe(1);
		expect(loadConfig({ RATE_LIMIT_PER_MINUTE: "1000000000" }).rateLimitPerWindow).toBe(1_000_000_000);
		expect(loadConfig({ RATE_LIMIT_WINDOW_SECONDS: "5" }).rateLimitPerWindow).toBe(60);
	});

	test.each([
		["0", 0],
		["65535", 65535],
		["080", 80],
	])("PORT=%p is %d", (raw, port) => {
		expect(loadConfig({ PORT: raw }).port).toBe(port);
	});

	test.each([
		["PURGE_INTERVAL", "2147483", "purgeIntervalSeconds", 2_147_483],
		["BUSY_TIMEOUT_MS", "0", "busyTimeoutMs", 0],
		["BUSY_TIMEOUT_MS", "60000", "busyTimeoutMs", 60_000],
		["REDIS_TIMEOUT_MS", "1", "redisTimeoutMs", 1],
		["REDIS_TIMEOUT_MS", "60000", "redisTimeoutMs", 60_000],
		["RATE_LIMIT_WINDOW_SECONDS", "1", "rateLimitWindowSeconds", 1],
		["RATE_LIMIT_WINDOW_SECONDS", "3600", "rateLimitWindowSeconds", 3600],
		["CDN_MAX_DOWNLOADS", "100000", "cdnMaxDownloads", 100_000],
		["IDLE_TIMEOUT_SECONDS", "255", "idleTimeoutSeconds", 255],
		["WAIT_MAX_HELD", "1000000", "waitMaxHeld", 1_000_000],
		["WAIT_MAX_HELD_PER_CLIENT", "1000000", "waitMaxHeldPerClient", 1_000_000],
	] as const)("%s=%s is its bound", (name, raw, key, expected) => {
		expect(loadConfig({ [name]: raw })[key]).toBe(expected);
	});

	test.each([
		["1", true],
		["true", true],
		["0", false],
		["false", false],
		[" 0 ", false],
	])("SEED_DEMO=%p is %p", (raw, seedDemo) => {
		expect(loadConfig({ SEED_DEMO: raw }).seedDemo).toBe(seedDemo);
	});

	test.each(["redis://localhost:6379", "redis://127.0.0.1", "rediss://user:pw@redis.example.com:6380/1"])(
		"REDIS_URL=%p is kept as written",
		(raw) => {
			expect(loadConfig({ REDIS_URL: raw }).redis).toEqual({ mode: "single", url: raw, tlsCa: null });
		},
	);
});

describe("base URLs", () => {
	test.each([
		["https://cdn.example.com/", "https://cdn.example.com"],
		["https://cdn.example.com/files/", "https://cdn.example.com/files"],
		["https://cdn.example.com/files///", "https://cdn.example.com/files"],
		["  http://cdn.example.com:8080/  ", "http://cdn.example.com:8080"],
		["HTTPS://CDN.example.com/Files", "HTTPS://CDN.example.com/Files"],
	])("CDN_BASE_URL=%p is %p", (raw, url) => {
		expect(loadConfig({ CDN_BASE_URL: raw }).cdnBaseUrl).toBe(url);
	});

	test("SITE_BASE_URL loses its trailing slashes too", () => {
		expect(loadConfig({ SITE_BASE_URL: "https://www.example.com//" }).siteBaseUrl).toBe(
			"https://www.example.com",
		);
	});
});

describe("TRUST_PROXY", () => {
	test("is parsed into its entries and ranges", () => {
		const config = loadConfig({
			TRUST_PROXY: " 10.0.0.0/8, 192.0.2.1 ,::1,2001:db8::/32,, ::ffff:10.0.0.0/104",
		});
		expect(config.trustProxy.entries).toEqual([
			"10.0.0.0/8",
			"192.0.2.1",
			"::1",
			"2001:db8::/32",
			"::ffff:10.0.0.0/104",
		]);
		expect(rangesOf(config)).toEqual([
			"10.0.0.0/8",
			"192.0.2.1/32",
			"::1/128",
			"2001:db8::/32",
			"10.0.0.0/8",
		]);
	});

	test("a single address", () => {
		const config = loadConfig({ TRUST_PROXY: "127.0.0.1" });
		expect(config.trustProxy.entries).toEqual(["127.0.0.1"]);
		expect(rangesOf(config)).toEqual(["127.0.0.1/32"]);
	});
});

describe("a bad value is a ConfigError naming the variable", () => {
	test.each([
		[{ PORT: "65536" }, 'PORT must be an integer from 0 to 65535, got "65536"'],
		[{ PORT: "-1" }, 'PORT must be an integer from 0 to 65535, got "-1"'],
		[{ PORT: "+80" }, 'PORT must be an integer from 0 to 65535, got "+80"'],
		[{ PORT: "80.0" }, 'PORT must be an integer from 0 to 65535, got "80.0"'],
		[{ PORT: "1e3" }, 'PORT must be an integer from 0 to 65535, got "1e3"'],
		[{ PORT: "0x50" }, 'PORT must be an integer from 0 to 65535, got "0x50"'],
		[{ PORT: "http" }, 'PORT must be an integer from 0 to 65535, got "http"'],
		[{ PORT: "8 080" }, 'PORT must be an integer from 0 to 65535, got "8 080"'],
		[{ PORT: "99999999999999999999" }, 'PORT must be an integer from 0 to 65535, got "99999999999999999999"'],
		[{ REDIS_TIMEOUT_MS: "0" }, 'REDIS_TIMEOUT_MS must be an integer from 1 to 60000, got "0"'],
		[{ REDIS_TIMEOUT_MS: "60001" }, 'REDIS_TIMEOUT_MS must be an integer from 1 to 60000, got "60001"'],
		[
			{ RATE_LIMIT_PER_MINUTE: "0" },
			'RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000000, got "0"',
		],
		[
			{ RATE_LIMIT_PER_MINUTE: "1000000001" },
			'RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000000, got "1000000001"',
		],
		[
			{ RATE_LIMIT_PER_MINUTE: "sixty" },
			'RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000000, got "sixty"',
		],
		[{ BUSY_TIMEOUT_MS: "60001" }, 'BUSY_TIMEOUT_MS must be an integer from 0 to 60000, got "60001"'],
		[
			{ RATE_LIMIT_WINDOW_SECONDS: "0" },
			'RATE_LIMIT_WINDOW_SECONDS must be an integer from 1 to 3600, got "0"',
		],
		[
			{ RATE_LIMIT_WINDOW_SECONDS: "3601" },
			'RATE_LIMIT_WINDOW_SECONDS must be an integer from 1 to 3600, got "3601"',
		],
		[{ PURGE_INTERVAL: "2147484" }, 'PURGE_INTERVAL must be an integer from 0 to 2147483, got "2147484"'],
		[{ PURGE_INTERVAL: "-1" }, 'PURGE_INTERVAL must be an integer from 0 to 2147483, got "-1"'],
		[{ PURGE_INTERVAL: "1h" }, 'PURGE_INTERVAL must be an integer from 0 to 2147483, got "1h"'],
		[{ SEED_DEMO: "yes" }, 'SEED_DEMO must be 1 or 0, got "yes"'],
		[{ SEED_DEMO: "no" }, 'SEED_DEMO must be 1 or 0, got "no"'],
		[{ SEED_DEMO: "TRUE" }, 'SEED_DEMO must be 1 or 0, got "TRUE"'],
		[{ SEED_DEMO: "2" }, 'SEED_DEMO must be 1 or 0, got "2"'],
		[
			{ CDN_BASE_URL: "ftp://cdn.example.com" },
			'CDN_BASE_URL must be an absolute http(s) URL, got "ftp://cdn.example.com"',
		],
		[{ CDN_BASE_URL: "/cdn" }, 'CDN_BASE_URL must be an absolute http(s) URL, got "/cdn"'],
		[
			{ CDN_BASE_URL: "cdn.example.com" },
			'CDN_BASE_URL must be an absolute http(s) URL, got "cdn.example.com"',
		],
		[
			{ CDN_BASE_URL: "file:///srv/cdn" },
			'CDN_BASE_URL must be an absolute http(s) URL, got "file:///srv/cdn"',
		],
		[
			{ SITE_BASE_URL: "www.example.com" },
			'SITE_BASE_URL must be an absolute http(s) URL, got "www.example.com"',
		],
		[
			{ SITE_BASE_URL: "mailto:a@example.com" },
			'SITE_BASE_URL must be an absolute http(s) URL, got "mailto:a@example.com"',
		],
		[
			{ REDIS_URL: "http://localhost:6379" },
			'REDIS_URL must be a redis:// or rediss:// URL, got "http://localhost:6379"',
		],
		[{ REDIS_URL: "localhost:6379" }, 'REDIS_URL must be a redis:// or rediss:// URL, got "localhost:6379"'],
		[
			{ REDIS_URL: "REDIS://localhost" },
			'REDIS_URL must be a redis:// or rediss:// URL, got "REDIS://localhost"',
		],
		[{ REDIS_URL: "redis://[::1" }, 'REDIS_URL must be a redis:// or rediss:// URL, got "redis://[::1"'],
		[{ TRUST_PROXY: "10.0.0.0/8, nonsense" }, 'TRUST_PROXY: not an IP address: "nonsense"'],
		[{ TRUST_PROXY: "10.0.0.0/33" }, 'TRUST_PROXY: not an IP address or CIDR range: "10.0.0.0/33"'],
		[{ TRUST_PROXY: "127.1" }, 'TRUST_PROXY: not an IP address: "127.1"'],
		[{ TRUST_PROXY: "localhost" }, 'TRUST_PROXY: not an IP address: "localhost"'],
		[{ FRESHNESS_CHECK: "shm" }, 'FRESHNESS_CHECK must be one of wal-index, data_version, got "shm"'],
		// Not echoed: the URL may hold a password.
		[
			{ DATABASE_URL: "mysql://faxes:secret@db/faxes" },
			"DATABASE_URL must be a PostgreSQL URL (postgres://user@host:port/database)",
		],
		[
			{ DATABASE_URL: "postgres://faxes@db/faxes", DATABASE_WRITE_URL: "mysql://faxes@db/faxes" },
			"DATABASE_WRITE_URL must be a PostgreSQL URL (postgres://user@host:port/database)",
		],
		[
			{ DNS_SERVERS: "127.0.0.1" },
			'DNS_SERVERS must be host:port pairs like 192.0.2.53:53 or [2001:db8::53]:53, separated by commas; got "127.0.0.1"',
		],
		[
			{ DATABASE_WRITE_URL: "postgres://faxes@db/faxes" },
			"DATABASE_WRITE_URL needs DATABASE_URL beside it (the database reads go to)",
		],
	])("%j: %s", (env, message) => {
		expect(configError(env).message).toBe(message);
	});

	test("the value named is the trimmed one", () => {
		expect(configError({ PORT: "  70000 " }).message).toBe(
			'PORT must be an integer from 0 to 65535, got "70000"',
		);
	});
});

describe("the Redis of the count: one mode at a time", () => {
	test("cluster seeds and sentinels as host:port lists, with credentials of their own", () => {
		expect(
			loadConfig({
				REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-b.internal:7001,[::1]:7002",
				REDIS_USERNAME: "testfax",
				REDIS_PASSWORD: "s3cret",
			}).redis,
		).toEqual({
			mode: "cluster",
			nodes: [
				{ host: "10.0.0.1", port: 7000 },
				{ host: "redis-b.internal", port: 7001 },
				{ host: "::1", port: 7002 },
			],
			username: "testfax",
			password: "s3cret",
			tlsCa: null,
		});
		expect(
			loadConfig({ REDIS_SENTINELS: "127.0.0.1:26379,127.0.0.1:26380", REDIS_SENTINEL_MASTER: "counts" })
				.redis,
		).toEqual({
			mode: "sentinel",
			sentinels: [
				{ host: "127.0.0.1", port: 26379 },
				{ host: "127.0.0.1", port: 26380 },
			],
			master: "counts",
			username: null,
			password: null,
			tlsCa: null,
		});
	});

	test.each([
		[
			{ REDIS_URL: "redis://a", REDIS_CLUSTER_NODES: "a:7000" },
			"REDIS_URL and REDIS_CLUSTER_NODES are set: choose one Redis mode",
		],
		[
			{ REDIS_CLUSTER_NODES: "a:7000", REDIS_SENTINELS: "a:26379", REDIS_SENTINEL_MASTER: "m" },
			"REDIS_CLUSTER_NODES and REDIS_SENTINELS are set: choose one Redis mode",
		],
		[{ REDIS_SENTINELS: "a:26379" }, "REDIS_SENTINELS needs REDIS_SENTINEL_MASTER, the master's name"],
		[{ REDIS_SENTINEL_MASTER: "m" }, "REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS"],
		[
			{ REDIS_URL: "redis://a", REDIS_PASSWORD: "x" },
			"REDIS_PASSWORD is for cluster and sentinel modes: put the credentials in REDIS_URL",
		],
		[
			{ REDIS_USERNAME: "u", REDIS_PASSWORD: "x" },
			"REDIS_USERNAME and REDIS_PASSWORD need REDIS_CLUSTER_NODES or REDIS_SENTINELS",
		],
		[
			{ REDIS_CLUSTER_NODES: "a:7000,b" },
			'REDIS_CLUSTER_NODES must be comma-separated host:port pairs, got "a:7000,b"',
		],
		[
			{ REDIS_CLUSTER_NODES: "a:70000" },
			'REDIS_CLUSTER_NODES must be comma-separated host:port pairs, got "a:70000"',
		],
		[
			{ REDIS_URL: "redis://a", REDIS_TLS_CA_FILE: "package.json" },
			'REDIS_TLS_CA_FILE must be a readable PEM bundle, got "package.json": no PEM certificate in it',
		],
		[{ REDIS_TLS_CA_FILE: "/nonexistent.pem" }, "REDIS_TLS_CA_FILE must be a readable PEM bundle"],
	])("%p is exit 2 naming the variables", (env, message) => {
		expect(() => loadConfig(env)).toThrow(message);
	});
});

describe("where to send a test (TEST_FAX_NUMBERS, TEST_FAX_ADDRESSES)", () => {
	test.each([
		[
			{ TEST_FAX_NUMBERS: "+1 555 010 0100, call us" },
			'TEST_FAX_NUMBERS must be phone numbers like +1 555 010 0100, separated by commas; got "call us"',
		],
		[
			{ TEST_FAX_ADDRESSES: "fax@testfax.example; scan@testfax.example" },
			'TEST_FAX_ADDRESSES must be email addresses like fax@testfax.example, separated by commas; got "fax@testfax.example; scan@testfax.example"',
		],
		[
			{ TEST_FAX_ADDRESSES: "<fax@testfax.example>" },
			'TEST_FAX_ADDRESSES must be email addresses like fax@testfax.example, separated by commas; got "<fax@testfax.example>"',
		],
	])("%o is refused with one line naming the variable", (env, message) => {
		expect(configError(env).message).toBe(message);
	});
});
