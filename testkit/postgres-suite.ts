// Preloaded by `npm run test:http:postgres`: one PostgreSQL server for the
// run, and every test server (testkit/server.ts) on a fresh database of it
// (DATABASE_URL) instead of its own SQLite file.
import { afterAll, beforeAll } from "bun:test";
import { startPostgres, useSuitePostgres } from "./postgres.ts";

beforeAll(async () => {
	useSuitePostgres(await startPostgres());
}, 60_000);

afterAll(async () => {
	await useSuitePostgres(undefined)?.stop();
});
