// Preloaded by `npm run test:http:postgres`: one PostgreSQL server for each
// test file (--parallel runs each file in a fresh global object, preload
// included), and every test server of the file (testkit/server.ts) on a
// fresh database of it (DATABASE_URL) instead of its own SQLite file.
import { afterAll, beforeAll } from "bun:test";
import { startPostgres, useSuitePostgres } from "./postgres.ts";

beforeAll(async () => {
	useSuitePostgres(await startPostgres());
}, 60_000);

afterAll(async () => {
	await useSuitePostgres(undefined)?.stop();
});
