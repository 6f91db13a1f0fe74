import { ROUTE_FILES } from "../routes/manifest.ts";
import type { Config } from "./config.ts";
import { FaxStore, openDatabase } from "./db/index.ts";
import { createFaxJson, createFaxPresenter } from "./fax/index.ts";
import { createApp } from "./http/index.ts";
import { createClientKeyResolver } from "./net/index.ts";
import { createRateLimiter, type RateLimiter } from "./rate-limit/index.ts";
import { schedulePurge } from "./storage/index.ts";
import { errorMessage } from "./util/index.ts";

export interface ServerOptions {
	/** Milliseconds since the epoch; tests pin it. */
	clock?: () => number;
	log?: (message: string) => void;
}

export interface RunningServer {
	url: string;
	port: number;
	stop(): Promise<void>;
}

/** A start-up failure the operator can fix; the message names the setting. */
export class StartupError extends Error {}

// The document pipeline (sharp, PDFium, pdf-lib) is loaded only when there is
// something to seed: a serving instance does not carry it in memory.
async function seedIfEmpty(store: FaxStore, config: Config, nowSeconds: number): Promise<number> {
	if (!config.seedDemo || !store.isEmpty()) return 0;
	const { seedDemoFaxes } = await import("./demo/index.ts");
	try {
		return await seedDemoFaxes(store, config.storageDir, nowSeconds);
	} catch (error) {
		throw new StartupError(`cannot load the demo faxes (SEED_DEMO, STORAGE_DIR): ${errorMessage(error)}`);
	}
}

/** Opens the database, seeds it if asked, and serves the routes of routes/ until stopped. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
	const clock = options.clock ?? Date.now;
	const log = options.log ?? ((message: string) => console.error(message));
	const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
	const store = new FaxStore(db);
	let limiter: RateLimiter | undefined;
	try {
		const seeded = await seedIfEmpty(store, config, Math.floor(clock() / 1000));
		if (seeded > 0) log(`loaded ${seeded} demo faxes into the empty database`);
		limiter = await createRateLimiter(
			{
				limit: config.rateLimitPerWindow,
				windowSeconds: config.rateLimitWindowSeconds,
				redisUrl: config.redisUrl,
				prefix: config.rateLimitPrefix,
				redisTimeoutMs: config.redisTimeoutMs,
			},
			{ clock, log },
		);
		const app = createApp({
			routes: ROUTE_FILES,
			services: {
				store,
				faxJson: createFaxJson(createFaxPresenter(config)),
				storageDir: config.storageDir,
			},
			limiter,
			clientKey: createClientKeyResolver(config.trustProxy),
			clock,
			log,
		});
		try {
			app.listen({ port: config.port, hostname: config.host });
		} catch (error) {
			throw new StartupError(
				`cannot listen on ${config.host} port ${config.port} (HOST, PORT): ${errorMessage(error)}`,
			);
		}
		const stopPurge = schedulePurge(store, config.storageDir, config.purgeIntervalSeconds, { clock, log });
		const port = app.server?.port ?? config.port;
		const host = config.host.includes(":") ? `[${config.host}]` : config.host;
		const running = limiter;
		return {
			url: `http://${host}:${port}`,
			port,
			async stop() {
				stopPurge();
				await app.stop(true);
				await running.close();
				db.close();
			},
		};
	} catch (error) {
		await limiter?.close();
		db.close();
		throw error;
	}
}
