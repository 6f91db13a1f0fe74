import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { ago, faxRecord } from "../../testkit/fixtures.ts";
import { sample } from "../../testkit/prometheus.ts";
import { useTestServers } from "../../testkit/server.ts";

const startServer = useTestServers();

async function metricsOf(admin: (path: string) => Promise<Response>): Promise<string> {
	const response = await admin("/metrics");
	expect(response.status).toBe(200);
	expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
	return response.text();
}

test("the admin listener answers /healthz and /readyz, naming the rate-limit backend", async () => {
	const server = await startServer();
	const health = await server.admin("/healthz");
	expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
	expect(health.headers.get("cache-control")).toBe("no-store");
	const ready = await server.admin("/readyz");
	expect([ready.status, await ready.json()]).toEqual([
		200,
		{ status: "ready", database: "ok", documents: "ok", rate_limit: "memory", redis_mode: null },
	]);
	expect(new URL(server.adminUrl).port).not.toBe(new URL(server.url).port);
});

test("the admin paths are not on the public port and the API is not on the admin port", async () => {
	const server = await startServer();
	for (const path of ["/healthz", "/readyz", "/metrics"]) {
		const response = await server.request(path);
		expect([path, response.status, await response.text()]).toEqual([path, 404, '{"message":""}']);
	}
	for (const path of ["/api/faxes", "/cdn/faxes/fax_x.pdf"]) {
		const response = await server.admin(path);
		expect([path, response.status]).toEqual([path, 404]);
	}
});

test("/readyz is 503 while the database cannot answer, and the SQLite error is counted", async () => {
	const server = await startServer({ sqlite: true });
	const other = new Database(server.databasePath);
	other.exec("DROP TABLE faxes");
	other.close();
	expect((await server.request("/api/faxes")).status).toBe(500);
	const ready = await server.admin("/readyz");
	expect([ready.status, await ready.json()]).toEqual([
		503,
		{
			status: "unready",
			database: "no such table: faxes",
			documents: "ok",
			rate_limit: "memory",
			redis_mode: null,
		},
	]);
	const metrics = await metricsOf(server.admin);
	expect(sample(metrics, 'testfax_sqlite_errors_total{code="SQLITE_ERROR"}')).toBe(1);
	expect(sample(metrics, 'testfax_http_requests_total{route="/api/faxes",method="GET",status="500"}')).toBe(
		1,
	);
	expect(metrics).not.toContain("testfax_faxes_received_24h{");
});

test("/metrics counts answers by route pattern, method and status, their latency, and 429s", async () => {
	const server = await startServer({
		env: { RATE_LIMIT_PER_MINUTE: "3" },
		faxes: [
			faxRecord({ slug: "fax_Metric01", received_at: ago(60) }),
			faxRecord({ slug: "fax_Metric02", received_at: ago(120), page_count: null, file_size: null }),
			faxRecord({ slug: "fax_Metric03", received_at: ago(2 * 86_400) }),
		],
	});
	for (const path of ["/api/faxes", "/api/faxes/fax_Metric01", "/api/faxes", "/api/faxes", "/nowhere"]) {
		await (await server.request(path)).arrayBuffer();
	}
	await (await server.request("/api/faxes", { method: "PURGE" })).arrayBuffer();
	const metrics = await metricsOf(server.admin);
	const requests = (labels: string) => sample(metrics, `testfax_http_requests_total{${labels}}`);
	expect(requests('route="/api/faxes",method="GET",status="200"')).toBe(2);
	expect(requests('route="/api/faxes/:slug",method="GET",status="200"')).toBe(1);
	expect(requests('route="/api/faxes",method="GET",status="429"')).toBe(1);
	expect(requests('route="none",method="GET",status="404"')).toBe(1);
	expect(requests('route="/api/faxes",method="other",status="429"')).toBe(1);
	expect(sample(metrics, "testfax_rate_limited_total")).toBe(2);
	expect(sample(metrics, 'testfax_http_request_duration_seconds_count{route="/api/faxes"}')).toBe(4);
	expect(sample(metrics, 'testfax_http_request_duration_seconds_bucket{le="+Inf",route="/api/faxes"}')).toBe(
		4,
	);
	expect(sample(metrics, 'testfax_rate_limit_backend{backend="memory"}')).toBe(1);
	expect(sample(metrics, 'testfax_rate_limit_backend{backend="redis"}')).toBe(0);
	expect(sample(metrics, "testfax_rate_limit_fallbacks_total")).toBe(0);
	expect(sample(metrics, 'testfax_faxes_received_24h{outcome="processed"}')).toBe(1);
	expect(sample(metrics, 'testfax_faxes_received_24h{outcome="not_processable"}')).toBe(1);
	expect(sample(metrics, "testfax_fax_latest_received_timestamp_seconds")).toBe(
		Math.floor(Date.parse(ago(60)) / 1000),
	);
	expect(sample(metrics, "process_resident_memory_bytes")).toBeGreaterThan(0);
	expect(sample(metrics, "process_cpu_seconds_total")).toBeGreaterThan(0);
	// Probes and scrapes are not answers to clients.
	expect(metrics).not.toContain('route="/metrics"');
});
