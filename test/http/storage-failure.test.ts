import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { captureLog } from "../../testkit/log.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

let server: TestServer | undefined;
afterEach(() => server?.stop());

function expectJsonError(response: Response) {
	expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
	expect(response.headers.get("cache-control")).toBe("no-store, private");
	expect(response.headers.get("access-control-allow-origin")).toBe("*");
}

test("an unexpected storage error answers 500 with a JSON body and is logged", async () => {
	const { logger, lines } = captureLog();
	server = await startTestServer({ logger, sqlite: true });
	const other = new Database(server.databasePath);
	other.exec("DROP TABLE faxes");
	other.close();
	const response = await server.request("/api/faxes");
	expect(response.status).toBe(500);
	expectJsonError(response);
	expect(await response.json()).toEqual({ message: "Server Error." });
	const failure = lines.find((line) => line.msg === "request failed");
	expect(failure?.level).toBe("error");
	expect(failure?.req_id).toBe(response.headers.get("x-request-id") ?? "");
	expect(JSON.stringify(failure?.err)).toContain("no such table: faxes");
	// Not once: the faxes in memory are not served as if nothing had happened.
	const again = await server.request("/api/faxes");
	expect(again.status).toBe(500);
	await again.text();
});
