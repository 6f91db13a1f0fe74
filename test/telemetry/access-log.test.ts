import { expect, test } from "bun:test";
import { faxRecord } from "../../testkit/fixtures.ts";
import { captureLog, type LogLine } from "../../testkit/log.ts";
import { useTestServers } from "../../testkit/server.ts";

const startServer = useTestServers();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SENDER = "+1 555 867 5309";

function accessLines(lines: LogLine[]): LogLine[] {
	return lines.filter((line) => line.msg === "request");
}

/** The fields of an access line that do not vary from run to run. */
function fixed(line: LogLine | undefined) {
	if (line === undefined) return undefined;
	const { time, req_id, duration_ms, ...rest } = line;
	return rest;
}

test("one JSON line per answer: time, method, route pattern, status, duration, request id, client network", async () => {
	const { logger, lines } = captureLog();
	const server = await startServer({ logger, faxes: [faxRecord({ slug: "fax_Logged1", sender: SENDER })] });
	const response = await server.request("/api/faxes/fax_Logged1");
	await response.text();
	const [line] = accessLines(lines);
	expect(accessLines(lines)).toHaveLength(1);
	expect(fixed(line)).toEqual({
		level: "info",
		method: "GET",
		route: "/api/faxes/:slug",
		status: 200,
		client: "127.0.0.0/24",
		msg: "request",
	});
	expect(line?.req_id).toMatch(UUID);
	expect(line?.req_id).toBe(response.headers.get("x-request-id") ?? "");
	expect(Date.now() - Date.parse(String(line?.time))).toBeLessThan(60_000);
	expect(String(line?.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	expect(line?.duration_ms).toBeGreaterThan(0);
});

test("every kind of answer is logged once with its route pattern, and never a raw sender or query", async () => {
	const { logger, lines } = captureLog();
	const server = await startServer({
		logger,
		env: { RATE_LIMIT_PER_MINUTE: "6" },
		faxes: [faxRecord({ slug: "fax_Logged1", sender: SENDER })],
	});
	const sent: [string, RequestInit?][] = [
		["/api/faxes?from=%2B15558675309"],
		["/api/faxes?limit=0"],
		["/api/faxes/fax_none1"],
		["/api/faxes", { method: "DELETE" }],
		["/api/faxes", { method: "HEAD" }],
		["/api/faxes"],
		["/api/faxes"],
		["/nowhere/5558675309"],
		["/api/faxes", { method: "OPTIONS", headers: { "access-control-request-method": "GET" } }],
		["/api/faxes", { headers: { "user-agent": "Python-urllib/3.12" } }],
		["/cdn/faxes/fax_Logged1.pdf"],
	];
	const ids: string[] = [];
	for (const [path, init] of sent) {
		const response = await server.request(path, init);
		await response.arrayBuffer();
		ids.push(response.headers.get("x-request-id") ?? "");
	}
	const logged = accessLines(lines);
	expect(logged.map((line) => [line.method, line.route, line.status])).toEqual([
		["GET", "/api/faxes", 200],
		["GET", "/api/faxes", 422],
		["GET", "/api/faxes/:slug", 404],
		["DELETE", "/api/faxes", 405],
		["HEAD", "/api/faxes", 200],
		["GET", "/api/faxes", 200],
		["GET", "/api/faxes", 429],
		["GET", "none", 404],
		["OPTIONS", "none", 204],
		["GET", "none", 403],
		["GET", "/cdn/faxes/:file", 404],
	]);
	expect(logged.map((line) => line.req_id)).toEqual(ids);
	expect(new Set(ids).size).toBe(ids.length);
	const text = JSON.stringify(lines);
	for (const secret of ["8675309", "5558675309", "555 867", "from=", "nowhere", "127.0.0.1"]) {
		expect(text).not.toContain(secret);
	}
});

test("behind a trusted proxy the client is the forwarded address's /24 or /48, never the address", async () => {
	const { logger, lines } = captureLog();
	const server = await startServer({ logger, env: { TRUST_PROXY: "127.0.0.1" } });
	for (const client of ["203.0.113.77", "2001:db8:1234:5678:9abc:def0:1234:5678", "::ffff:198.51.100.9"]) {
		await (await server.request("/api/faxes", { headers: { "x-forwarded-for": client } })).arrayBuffer();
	}
	expect(accessLines(lines).map((line) => line.client)).toEqual([
		"203.0.113.0/24",
		"2001:db8:1234::/48",
		"198.51.100.0/24",
	]);
});

test("a level above info (LOG_LEVEL=warn) logs no access lines", async () => {
	const { logger, lines } = captureLog("warn");
	const server = await startServer({ logger });
	await (await server.request("/api/faxes")).arrayBuffer();
	await (await server.request("/nowhere")).arrayBuffer();
	expect(lines).toEqual([]);
});

test("the description, the docs page and the fax pages are logged like the API and never counted", async () => {
	const { logger, lines } = captureLog();
	const server = await startServer({
		logger,
		env: { RATE_LIMIT_PER_MINUTE: "1" },
		faxes: [faxRecord({ slug: "fax_Logged1", sender: SENDER })],
	});
	const pages = [
		"/openapi.json",
		"/docs",
		"/docs/API.md",
		"/docs/redoc.standalone.js",
		"/faxtest/fax_Logged1",
		"/faxtest/fax_none1",
	];
	for (const path of pages) {
		const response = await server.request(path);
		await response.arrayBuffer();
		expect([path, response.headers.get("x-ratelimit-remaining")]).toEqual([path, null]);
	}
	const api = await server.request("/api/faxes");
	await api.arrayBuffer();
	expect([api.status, api.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
	expect(accessLines(lines).map((line) => [line.route, line.status])).toEqual([
		["/openapi.json", 200],
		["/docs", 200],
		["/docs/API.md", 200],
		["/docs/redoc.standalone.js", 200],
		["/faxtest/:slug", 200],
		["/faxtest/:slug", 404],
		["/api/faxes", 200],
	]);
	expect(JSON.stringify(lines)).not.toContain("8675309");
});
