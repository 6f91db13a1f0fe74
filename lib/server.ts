import type { Config } from "./config.ts";
import { FaxStore } from "./db/fax-store.ts";
import { openDatabase } from "./db/open-database.ts";
import { createFaxPresenter } from "./fax/present-fax.ts";
import { createApp } from "./http/app.ts";
import { seedDemoFaxes } from "./import/seed-demo.ts";
import { createClientKeyResolver } from "./rate-limit/client-address.ts";
import { createRateLimiter } from "./rate-limit/create-limiter.ts";
import { schedulePurge } from "./storage/purge-schedule.ts";

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

/** Opens the database, seeds it if asked, and serves the API until stopped. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
	const clock = options.clock ?? Date.now;
	const log = options.log ?? ((message: string) => console.error(message));
	const db = openDatabase(config.databasePath);
	const store = new FaxStore(db);
	if (config.seedDemo) {
		const seeded = await seedDemoFaxes(store, config.storageDir, Math.floor(clock() / 1000));
		if (seeded > 0) log(`loaded ${seeded} demo faxes into the empty database`);
	}
	const limiter = await createRateLimiter(config, { clock, log });
	const app = createApp({
		services: { store, present: createFaxPresenter(config) },
		limiter,
		clientKey: createClientKeyResolver(config.trustProxy),
		storageDir: config.storageDir,
		clock,
		log,
	}).listen({ port: config.port, hostname: config.host });
	const stopPurge = schedulePurge(store, config.storageDir, config.purgeIntervalSeconds, { clock, log });
	const port = app.server?.port ?? config.port;
	const host = config.host.includes(":") ? `[${config.host}]` : config.host;
	return {
		url: `http://${host}:${port}`,
		port,
		async stop() {
			stopPurge();
			await app.stop(true);
			await limiter.close();
			db.close();
		},
	};
}
