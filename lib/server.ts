import { dirname } from "node:path";
import { ROUTE_FILES } from "../routes/manifest.ts";
import type { Config } from "./config.ts";
import {
	FaxStats,
	FaxStore,
	isPassingPostgresFailure,
	openEngine,
	SchemaNotReadyError,
	type StoreEngine,
} from "./db/index.ts";
import { createFaxJson, createFaxPresenter } from "./fax/index.ts";
import { HeldLists } from "./hold/index.ts";
import { createAdminApp, createApp, type RequestObserver, type RouteServices } from "./http/index.ts";
import { CallStreams, CallsShown } from "./live-calls/index.ts";
import type { Logger } from "./log/index.ts";
import { type ClientKeyResolver, createClientKeyResolver } from "./net/index.ts";
import { apiDescriptionText } from "./openapi/index.ts";
import { PageMemory } from "./pages/index.ts";
import { createPipelineProbe } from "./pipeline-probe.ts";
import { receiverQueues } from "./queues/index.ts";
import { createRateLimiter, type RateLimit } from "./rate-limit/index.ts";
import { RecentFaxes } from "./recent/index.ts";
import { outcomeOfReport } from "./report/index.ts";
import { Representation } from "./representation/index.ts";
import { schedulePurge } from "./storage/index.ts";
import { createRequestObserver, DatabaseHealth, ServiceMetrics } from "./telemetry/index.ts";
import { errorMessage, type SetTimer } from "./util/index.ts";

export interface ServerOptions {
	/** Milliseconds since the epoch; tests pin it. */
	clock?: () => number;
	/** Monotonic milliseconds for rate-limit windows (performance.now); tests that pin `clock` pin it too. */
	monotonic?: () => number;
	/** The timers of held requests' time limits; tests that pin `clock` may step them too. */
	setTimer?: SetTimer;
	logger: Logger;
	/** Where the logger writes, when it can drop lines (standard output): /metrics counts the drops. */
	logOutput?: { readonly droppedLines: number };
}

/** How a shutdown went. */
export interface Drained {
	/** Requests being answered when the listener closed. */
	inFlight: number;
	/** Requests still open when the drain timeout ended them. */
	cut: number;
	durationMs: number;
}

export interface RunningServer {
	url: string;
	port: number;
	/** The admin listener: /healthz, /readyz, /metrics. */
	adminUrl: string;
	adminPort: number;
	/**
	 * Answers the held list requests, reports not ready at once, keeps accepting for SHUTDOWN_DELAY_SECONDS,
	 * then stops accepting, answers every request already accepted (at most
	 * SHUTDOWN_TIMEOUT_SECONDS, then cuts the rest), and closes Redis and the
	 * database. Calling it again returns the same drain.
	 */
	stop(): Promise<Drained>;
}

/** A start-up failure the operator can fix; the message names the setting. */
export class StartupError extends Error {}

// The document pipeline (sharp, PDFium, pdf-lib) is loaded only when there is
// something to seed: a serving instance does not carry it in memory.
async function seedIfEmpty(store: FaxStore, config: Config, nowSeconds: number): Promise<number> {
	if (!config.seedDemo || !(await store.isEmpty())) return 0;
	const { seedDemoFaxes } = await import("./demo/index.ts");
	try {
		return await seedDemoFaxes(store, config.storageDir, nowSeconds);
	} catch (error) {
		throw new StartupError(`cannot load the demo faxes (SEED_DEMO, STORAGE_DIR): ${errorMessage(error)}`);
	}
}

// SEED_DEMO makes a demo instance (on unless NODE_ENV=production): besides the
// faxes of a first run, it shows a call being received, on every start, so a
// restarted demo still shows one whatever its database holds (and carries
// lib/demo's document pipeline). An instance where it is off never shows a
// call that is not happening.
async function showDemoCall(config: Config, options: ServerOptions, clock: () => number, store: FaxStore) {
	if (!config.seedDemo) return () => Promise.resolve();
	const { startDemoCall } = await import("./demo/index.ts");
	const demo = await startDemoCall(store, { logger: options.logger, clock, setTimer: options.setTimer });
	return () => demo.stop();
}

type App = ReturnType<typeof createApp> | ReturnType<typeof createAdminApp>;

// Elysia's default; probes and scrapes are short.
const ADMIN_IDLE_SECONDS = 30;
// No route reads a request body, and Bun drains an unread one without keeping
// it, so a body of any size gets the app's answer (405 with every header the
// contract asks for) instead of Bun's bare 413 past its default 128 MiB.
const UNREAD_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

interface Listening {
	port: number;
	hostname: string;
	reusePort: boolean;
	/** Bun closes a connection on which nothing moved for this long, a stalled download's too. */
	idleTimeout: number;
	/** Past this declared body size Bun answers a bare 413 before the app sees the request. */
	maxRequestBodySize: number;
}

function listen(app: App, options: Listening, names: string): number {
	const { port, hostname } = options;
	try {
		// Elysia asks Bun for SO_REUSEPORT unless told otherwise; a second
		// instance on a busy port would then start and take part of the traffic.
		app.listen(options);
	} catch (error) {
		throw new StartupError(`cannot listen on ${hostname} port ${port} (${names}): ${errorMessage(error)}`);
	}
	return app.server?.port ?? port;
}

function urlOf(host: string, port: number): string {
	return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Everything a running server answers with, and what its drain closes. */
interface Services {
	routes: RouteServices;
	heldLists: HeldLists;
	limiter: RateLimit["limiter"];
	clientKey: ClientKeyResolver;
	observer: RequestObserver;
	health: DatabaseHealth;
	/** Set once the drain begins: readiness then says 503. */
	startDrain(): void;
	close(): Promise<void>;
}

interface Parts {
	store: FaxStore;
	stats: FaxStats;
	heldLists: HeldLists;
	callStreams: CallStreams;
	rateLimit: RateLimit;
	health: DatabaseHealth;
}

function serviceMetrics(config: Config, options: ServerOptions, clock: () => number, parts: Parts) {
	const { store, stats, heldLists, callStreams, rateLimit, health } = parts;
	return new ServiceMetrics({
		rateLimit: rateLimit.status,
		stats,
		clock,
		droppedLogLines: () => options.logOutput?.droppedLines ?? 0,
		freshnessCheck: store.commitSource,
		heldRequests: () => heldLists.size,
		callStreams: () => callStreams.size,
		heldRequestsLimit: config.waitMaxHeld,
		volumes: { database: dirname(config.databasePath), storage: config.storageDir },
		receiverQueues: receiverQueues(store, {
			recvqDir: config.receiverRecvq,
			postqueue: config.receiverPostqueue,
		}),
		databaseFailures: (trouble) => health.failures(trouble),
	});
}

// How often a start-up waiting for its database tries again.
const OPEN_RETRY_MS = 2000;

/**
 * Opens the database; on PostgreSQL, one that is not usable yet (a node
 * starting or failing over, a standby whose schema the primary has not made)
 * is waited for, not listening meanwhile (so not ready), with one line each
 * time the reason changes. Anything else is a start-up failure.
 */
async function openWhenUsable(config: Config, logger: Logger): Promise<StoreEngine> {
	let waitingFor: string | null = null;
	for (;;) {
		try {
			const engine = await openEngine({ ...config, commitSource: config.freshnessCheck });
			if (waitingFor !== null) logger.info({ database: "ok" }, "the database is usable: starting");
			return engine;
		} catch (error) {
			const passing = error instanceof SchemaNotReadyError || isPassingPostgresFailure(error);
			if (config.databaseUrl === null || !passing) throw error;
			const reason = errorMessage(error);
			if (reason !== waitingFor)
				logger.warn(
					{ reason, retry_in_s: OPEN_RETRY_MS / 1000 },
					"waiting for the database before listening",
				);
			waitingFor = reason;
			await Bun.sleep(OPEN_RETRY_MS);
		}
	}
}

/** The services around the opened database: the faxes in memory, the held lists and the rate limit. */
async function buildParts(config: Config, options: ServerOptions, clock: () => number, store: FaxStore) {
	const seeded = await seedIfEmpty(store, config, Math.floor(clock() / 1000));
	if (seeded > 0) options.logger.info({ faxes: seeded }, "loaded the demo faxes into the empty database");
	const faxes = await RecentFaxes.open(
		store,
		createFaxJson(createFaxPresenter(config)),
		Math.floor(clock() / 1000),
		{
			outcomeOf: outcomeOfReport,
		},
	);
	const heldLists = new HeldLists(
		faxes,
		{ maxHeld: config.waitMaxHeld, maxPerClient: config.waitMaxHeldPerClient },
		{ clock, setTimer: options.setTimer },
	);
	const rateLimit = await createRateLimiter(
		{
			limit: config.rateLimitPerWindow,
			windowSeconds: config.rateLimitWindowSeconds,
			redis: config.redis,
			prefix: config.rateLimitPrefix,
			redisTimeoutMs: config.redisTimeoutMs,
		},
		{ clock, monotonic: options.monotonic, logger: options.logger },
	);
	const calls = new CallsShown(store, await store.watchCommits(), clock);
	const callStreams = new CallStreams(
		calls,
		{ maxHeld: config.waitMaxHeld, maxPerClient: config.waitMaxHeldPerClient },
		{ clock, setTimer: options.setTimer },
	);
	return { faxes, heldLists, rateLimit, calls, callStreams };
}

/** What the files and the pages are answered with, besides the faxes. */
function siteServices(config: Config) {
	return {
		pages: new PageMemory(),
		storageDir: config.storageDir,
		cdnOrigin: new URL(config.cdnBaseUrl).origin,
		sendTo: config.sendTo,
		maxDownloads: config.cdnMaxDownloads,
	};
}

/** Opens the database, seeds it if asked, and builds the services the routes answer with. */
async function buildServices(config: Config, options: ServerOptions, clock: () => number): Promise<Services> {
	const engine = await openWhenUsable(config, options.logger);
	const store = new FaxStore(engine);
	const stats = new FaxStats(engine.sql);
	let built: Awaited<ReturnType<typeof buildParts>> | undefined;
	try {
		built = await buildParts(config, options, clock, store);
		const { faxes, heldLists, rateLimit, calls, callStreams } = built;
		const health = new DatabaseHealth(options.logger, () => store.probe());
		const metrics = serviceMetrics(config, options, clock, {
			store,
			stats,
			heldLists,
			callStreams,
			rateLimit,
			health,
		});
		const stopDemoCall = await showDemoCall(config, options, clock, store);
		let draining = false;
		return {
			routes: {
				store,
				faxes,
				heldLists,
				calls,
				callStreams,
				...siteServices(config),
				apiDescription: new Representation(apiDescriptionText(ROUTE_FILES)),
				operations: {
					isDraining: () => draining,
					checkDatabase: () => health.check(),
					documentPipeline: createPipelineProbe(),
					rateLimit: () => rateLimit.status(),
					metrics: () => metrics.text(),
				},
			},
			heldLists,
			limiter: rateLimit.limiter,
			clientKey: createClientKeyResolver(config.trustProxy),
			observer: createRequestObserver({ logger: options.logger, metrics, health }),
			health,
			startDrain() {
				draining = true;
			},
			async close() {
				// Before the database closes: the demo call's entry is removed as it stops.
				await stopDemoCall();
				await rateLimit.limiter.close();
				await store.close();
			},
		};
	} catch (error) {
		await built?.rateLimit.limiter.close();
		await store.close();
		throw error;
	}
}

interface Listeners {
	public: Server;
	admin: Server;
	port: number;
	adminPort: number;
}

type Server = NonNullable<App["server"]>;

/** Serves the public routes on HOST:PORT and the admin routes on ADMIN_HOST:ADMIN_PORT. */
async function listenBoth(config: Config, services: Services, clock: () => number): Promise<Listeners> {
	const publicApp = createApp({
		routes: ROUTE_FILES,
		services: services.routes,
		limiter: services.limiter,
		rateLimitWindowSeconds: config.rateLimitWindowSeconds,
		clientKey: services.clientKey,
		clock,
		observer: services.observer,
	});
	const port = listen(
		publicApp,
		{
			port: config.port,
			hostname: config.host,
			reusePort: config.reusePort,
			idleTimeout: config.idleTimeoutSeconds,
			maxRequestBodySize: UNREAD_BODY_LIMIT,
		},
		"HOST, PORT, REUSE_PORT",
	);
	const adminApp = createAdminApp({
		routes: ROUTE_FILES,
		services: services.routes,
		observer: services.observer,
	});
	try {
		// The admin port is never shared: a probe must reach the instance it asks about.
		const adminPort = listen(
			adminApp,
			{
				port: config.adminPort,
				hostname: config.adminHost,
				reusePort: false,
				idleTimeout: ADMIN_IDLE_SECONDS,
				maxRequestBodySize: UNREAD_BODY_LIMIT,
			},
			"ADMIN_HOST, ADMIN_PORT",
		);
		return { public: publicApp.server as Server, admin: adminApp.server as Server, port, adminPort };
	} catch (error) {
		await publicApp.stop(true);
		throw error;
	}
}

/**
 * The shutdown: held requests answered at once, readiness 503, accepting for
 * SHUTDOWN_DELAY_SECONDS, then every accepted request answered (at most
 * SHUTDOWN_TIMEOUT_SECONDS), and the services closed.
 */
async function drain(config: Config, services: Services, listeners: Listeners): Promise<Drained> {
	services.startDrain();
	// Before the delay: an answer held until its time limit would hold the drain as long.
	services.heldLists.releaseAll();
	const began = performance.now();
	if (config.shutdownDelaySeconds > 0) await Bun.sleep(config.shutdownDelaySeconds * 1000);
	const server = listeners.public;
	const inFlight = server.pendingRequests;
	let timer: Timer | undefined;
	const timedOut = new Promise<"timeout">((resolve) => {
		timer = setTimeout(resolve, config.shutdownTimeoutSeconds * 1000, "timeout");
	});
	const outcome = await Promise.race([server.stop(false), timedOut]);
	clearTimeout(timer);
	let cut = 0;
	if (outcome === "timeout") {
		cut = server.pendingRequests;
		await server.stop(true);
	}
	await services.close();
	await listeners.admin.stop(true);
	return { inFlight, cut, durationMs: performance.now() - began };
}

/** Opens the database, seeds it if asked, and serves the routes of routes/ until stopped. */
export async function startServer(config: Config, options: ServerOptions): Promise<RunningServer> {
	const clock = options.clock ?? Date.now;
	const services = await buildServices(config, options, clock);
	let listeners: Listeners;
	try {
		listeners = await listenBoth(config, services, clock);
	} catch (error) {
		await services.close();
		throw error;
	}
	const stopHealth = () => services.health.close();
	const stopPurge = schedulePurge(services.routes.store, config.storageDir, config.purgeIntervalSeconds, {
		clock,
		logger: options.logger,
		health: services.health,
	});
	let stopped: Promise<Drained> | undefined;
	return {
		url: urlOf(config.host, listeners.port),
		port: listeners.port,
		adminUrl: urlOf(config.adminHost, listeners.adminPort),
		adminPort: listeners.adminPort,
		stop() {
			stopPurge();
			stopHealth();
			stopped ??= drain(config, services, listeners);
			return stopped;
		},
	};
}
