import { statfs } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { DATABASE_TROUBLES, type DatabaseTrouble, type FaxStats, type FreshnessSource } from "../db/index.ts";
import type { QueueReading, ReceiverQueues } from "../queues/index.ts";
import type { RateLimitStatus } from "../rate-limit/index.ts";

export interface MetricSources {
	/** The rate limit's backend and switches, read at each scrape. */
	rateLimit(): RateLimitStatus;
	/** The shared database, asked at each scrape: faxes are recorded by the CLI, not by this process. */
	stats: FaxStats;
	/** Milliseconds since the epoch. */
	clock: () => number;
	/** Log lines dropped because standard output was not taking them. */
	droppedLogLines: () => number;
	/** How requests learn of other processes' commits (FRESHNESS_CHECK, or data_version where no WAL index exists). */
	freshnessCheck: FreshnessSource;
	/** List requests with `wait` held now. */
	heldRequests: () => number;
	/** The pages' streams of calls in progress open now (/faxtest/calls). */
	callStreams: () => number;
	/** WAIT_MAX_HELD: past it, list requests with `wait` are answered at once. */
	heldRequestsLimit: number;
	/** The folders whose file systems fill up, by name: the database's and STORAGE_DIR. */
	volumes: Record<string, string>;
	/** The receivers' queues, read at each scrape. */
	receiverQueues: ReceiverQueues;
	/** Passing failures of the database met so far, by trouble (lib/db/database-health.ts). */
	databaseFailures: (trouble: DatabaseTrouble) => number;
}

const DAY_SECONDS = 24 * 3600;
// The gauges of one scrape share one reading of the receivers' queues.
const SCRAPE_MS = 1000;
// The API answers in well under a millisecond; the upper buckets catch Redis timeouts and stalls.
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * A database that cannot answer leaves its gauges out of the scrape (readiness
 * reports it) instead of failing /metrics, whose process and request metrics
 * matter most just then.
 */
async function fromDatabase<T>(gauge: Gauge, read: () => Promise<T>): Promise<T | undefined> {
	try {
		return await read();
	} catch {
		gauge.reset();
		return undefined;
	}
}

/** statfs of `path`, or of its nearest existing parent: STORAGE_DIR is made at the first fax. */
async function statfsOfNearest(path: string) {
	for (let dir = resolve(path); ; dir = dirname(dir)) {
		const stats = await statfs(dir).catch(() => null);
		if (stats !== null || dir === dirname(dir)) return stats;
	}
}

/** Free and total bytes of the file systems the service writes, by volume name. */
function volumeGauges(volumes: Record<string, string>, registers: Registry[]): void {
	const read = async (
		pick: (stats: { bavail: number; blocks: number; bsize: number }) => number,
		gauge: Gauge,
	) => {
		gauge.reset();
		for (const [volume, path] of Object.entries(volumes)) {
			const stats = await statfsOfNearest(path);
			if (stats !== null) gauge.set({ volume }, pick(stats) * stats.bsize);
		}
	};
	new Gauge({
		name: "testfax_volume_free_bytes",
		help: "Bytes free for the service on the file system of each folder it writes (database, storage).",
		labelNames: ["volume"],
		registers,
		collect() {
			return read((stats) => stats.bavail, this);
		},
	});
	new Gauge({
		name: "testfax_volume_size_bytes",
		help: "Size in bytes of the file system of each folder the service writes (database, storage).",
		labelNames: ["volume"],
		registers,
		collect() {
			return read((stats) => stats.blocks, this);
		},
	});
}

/**
 * The receivers' queues (lib/queues), read once per scrape by whichever of
 * the three gauges is collected first (a registry collects them at once):
 * `waiting` and the oldest one's age are absent while a queue cannot be
 * read, which `testfax_receiver_queue_readable` says.
 */
function receiverQueueGauges(sources: MetricSources, registers: Registry[]): void {
	let scrape: { at: number; readings: Promise<QueueReading[]> } | null = null;
	const readOnce = () => {
		const now = sources.clock();
		if (scrape === null || now - scrape.at > SCRAPE_MS) {
			scrape = { at: now, readings: sources.receiverQueues(Math.floor(now / 1000)) };
		}
		return scrape.readings;
	};
	const gauge = (name: string, help: string, value: (reading: QueueReading) => number | null) =>
		new Gauge({
			name,
			help,
			labelNames: ["receiver"],
			registers,
			async collect() {
				const readings = await readOnce();
				this.reset();
				for (const reading of readings) {
					const number = value(reading);
					if (number !== null) this.set({ receiver: reading.receiver }, number);
				}
			},
		});
	gauge(
		"testfax_receiver_queue_readable",
		"1 when the receiver's queue could be read at this scrape, 0 when not (permissions, postqueue missing).",
		(reading) => (reading.waiting === null ? 0 : 1),
	);
	gauge(
		"testfax_receiver_waiting",
		"Faxes or mails in the receiver's queue not handed over to the service yet (a failed hand-over stays there).",
		(reading) => reading.waiting,
	);
	gauge(
		"testfax_receiver_oldest_waiting_seconds",
		"Seconds the oldest fax or mail not handed over yet has waited in the receiver's queue; 0 when none.",
		(reading) => reading.oldestSeconds,
	);
}

/** How requests learn of commits, and the list requests held now and at most. */
function heldRequestGauges(sources: MetricSources, registers: Registry[]): void {
	new Gauge({
		name: "testfax_freshness_check",
		help: "1 for how each request learns of other processes' commits: wal-index (the -shm header) or data_version.",
		labelNames: ["source"],
		registers,
	}).set({ source: sources.freshnessCheck }, 1);
	new Gauge({
		name: "testfax_held_requests",
		help: "List requests with wait held by this instance now.",
		registers,
		collect() {
			this.set(sources.heldRequests());
		},
	});
	new Gauge({
		name: "testfax_call_streams",
		help: "Streams of calls in progress (/faxtest/calls) open on this instance now; bounded by WAIT_MAX_HELD as held lists are.",
		registers,
		collect() {
			this.set(sources.callStreams());
		},
	});
	new Gauge({
		name: "testfax_held_requests_limit",
		help: "WAIT_MAX_HELD: list requests with wait this instance holds at most; past it they are answered at once.",
		registers,
	}).set(sources.heldRequestsLimit);
}

/** A counter that reports a running total kept elsewhere, read at each scrape. */
function totalCounter(name: string, help: string, registers: Registry[], total: () => number): void {
	new Counter({
		name,
		help,
		registers,
		collect() {
			this.reset();
			this.inc(total());
		},
	});
}

/** The database's passing failures: each is counted here, only a change of trouble is logged. */
function databaseMetrics(sources: MetricSources, registers: Registry[]): void {
	new Counter({
		name: "testfax_database_failures_total",
		help: "Requests, probes and purges the database failed for a passing reason, by trouble (unavailable, read-only).",
		labelNames: ["trouble"],
		registers,
		collect() {
			this.reset();
			for (const trouble of DATABASE_TROUBLES) this.inc({ trouble }, sources.databaseFailures(trouble));
		},
	});
}

/** Where the rate limit is counted, how its Redis is reached, and the log lines dropped. */
function rateLimitMetrics(sources: MetricSources, registers: Registry[]): void {
	new Gauge({
		name: "testfax_rate_limit_backend",
		help: "1 for the store counting the rate limit now: redis, or memory (configured, or while Redis is unavailable).",
		labelNames: ["backend"],
		registers,
		collect() {
			const inRedis = sources.rateLimit().backend === "redis";
			this.set({ backend: "redis" }, inRedis ? 1 : 0);
			this.set({ backend: "memory" }, inRedis ? 0 : 1);
		},
	});
	new Gauge({
		name: "testfax_rate_limit_redis_mode",
		help: "1 for how the Redis of the count is reached (single, cluster, sentinel); no series without Redis.",
		labelNames: ["mode"],
		registers,
		collect() {
			const mode = sources.rateLimit().redisMode;
			if (mode !== null) this.set({ mode }, 1);
		},
	});
	totalCounter(
		"testfax_rate_limit_counted_in_memory_total",
		"Requests counted in process memory because Redis could not count them (configured Redis only).",
		registers,
		() => sources.rateLimit().countedInMemory,
	);
	totalCounter(
		"testfax_rate_limit_fallbacks_total",
		"Switches from counting in Redis to counting in process memory.",
		registers,
		() => sources.rateLimit().fallbacks,
	);
	totalCounter(
		"testfax_log_lines_dropped_total",
		"Log lines dropped because standard output was not taking them (access lines first).",
		registers,
		sources.droppedLogLines,
	);
}

/** The faxes of the shared database, read at each scrape. */
function faxGauges(sources: MetricSources, registers: Registry[]): void {
	new Gauge({
		name: "testfax_faxes_received_24h",
		help: "Faxes received in the last 24 hours and still listed, by outcome; read from the shared database.",
		labelNames: ["outcome"],
		registers,
		async collect() {
			const now = Math.floor(sources.clock() / 1000);
			const counts = await fromDatabase(this, () => sources.stats.receivedAfter(now - DAY_SECONDS));
			if (counts === undefined) return;
			this.set({ outcome: "processed" }, counts.processed);
			this.set({ outcome: "not_processable" }, counts.notProcessable);
		},
	});
	new Gauge({
		name: "testfax_fax_latest_received_timestamp_seconds",
		help: "received_at of the newest fax in the shared database (Unix seconds); 0 when there is none.",
		registers,
		async collect() {
			const latest = await fromDatabase(this, () => sources.stats.latestReceivedAt());
			if (latest !== undefined) this.set(latest ?? 0);
		},
	});
}

/**
 * Everything /metrics reports, in one registry of its own. Request metrics are
 * counted as answers are given; the rate-limit backend and the fax counts are
 * read when Prometheus scrapes.
 */
export class ServiceMetrics {
	readonly registry = new Registry();
	readonly #requests: Counter<"route" | "method" | "status">;
	readonly #duration: Histogram<"route">;
	readonly #rateLimited: Counter;
	readonly #sqliteErrors: Counter<"code">;

	constructor(sources: MetricSources) {
		const registers = [this.registry];
		collectDefaultMetrics({ register: this.registry });
		this.#requests = new Counter({
			name: "testfax_http_requests_total",
			help: "Answers of the public listener by route pattern, method and status.",
			labelNames: ["route", "method", "status"],
			registers,
		});
		this.#duration = new Histogram({
			name: "testfax_http_request_duration_seconds",
			help: "Time from a request's arrival to its answer, by route pattern.",
			labelNames: ["route"],
			buckets: LATENCY_BUCKETS,
			registers,
		});
		this.#rateLimited = new Counter({
			name: "testfax_rate_limited_total",
			help: "Answers refused with 429 by the rate limit.",
			registers,
		});
		this.#sqliteErrors = new Counter({
			name: "testfax_sqlite_errors_total",
			help: "SQLite errors while answering requests, by SQLite error code.",
			labelNames: ["code"],
			registers,
		});
		heldRequestGauges(sources, registers);
		volumeGauges(sources.volumes, registers);
		receiverQueueGauges(sources, registers);
		rateLimitMetrics(sources, registers);
		databaseMetrics(sources, registers);
		faxGauges(sources, registers);
	}

	answered(route: string, method: string, status: number, seconds: number): void {
		this.#requests.inc({ route, method, status });
		this.#duration.observe({ route }, seconds);
		if (status === 429) this.#rateLimited.inc();
	}

	sqliteError(code: string): void {
		this.#sqliteErrors.inc({ code });
	}

	async text(): Promise<{ type: string; body: string }> {
		return { type: this.registry.contentType, body: await this.registry.metrics() };
	}
}
