import { afterAll, beforeAll } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openEngine, type StoreEngine } from "../lib/db/index.ts";
import { type PostgresServer, startPostgres } from "./postgres.ts";
import { makeTempDir } from "./server.ts";

export type EngineName = "sqlite" | "postgres";
export const ENGINES: readonly EngineName[] = ["sqlite", "postgres"];

/** Where a test's fresh database is: a SQLite path or a PostgreSQL URL. */
export interface FreshDatabase {
	databasePath: string;
	databaseUrl: string | null;
}

/**
 * For a test file that runs against both engines: a PostgreSQL server of its
 * own for the file and a temp folder, both removed after it; `fresh(engine)`
 * names a new empty database, `open` opens one.
 */
export function useStoreEngines(): {
	fresh(engine: EngineName): Promise<FreshDatabase>;
	open(database: FreshDatabase): Promise<StoreEngine>;
} {
	let postgres: PostgresServer | undefined;
	const dir = makeTempDir();
	let files = 0;
	beforeAll(async () => {
		postgres = await startPostgres();
	}, 60_000);
	afterAll(async () => {
		await postgres?.stop();
		rmSync(dir, { recursive: true, force: true });
	});
	return {
		async fresh(engine) {
			const databasePath = join(dir, `faxes-${++files}.sqlite`);
			if (engine === "sqlite") return { databasePath, databaseUrl: null };
			if (postgres === undefined) throw new Error("PostgreSQL has not started");
			return { databasePath, databaseUrl: await postgres.createDatabase() };
		},
		open: (database) => openEngine({ ...database, busyTimeoutMs: 2000 }),
	};
}
