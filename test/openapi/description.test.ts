import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { OFFSET_DATE_TIME_PATTERN } from "../../lib/fax/index.ts";
import { isEndpoint, routePathOf } from "../../lib/http/index.ts";
import { apiDescriptionText } from "../../lib/openapi/index.ts";
import { ROUTE_FILES } from "../../routes/manifest.ts";
import { DESCRIPTION_FILE, schemaValidator } from "../../testkit/api-description.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

type Json = { [key: string]: unknown };

const committed = await Bun.file(DESCRIPTION_FILE).text();
const description = JSON.parse(committed) as Json;

/** The value at a path of keys, or a failed test. */
function pointer(node: Json, keys: string[]): Json {
	return keys.reduce((at: Json, key) => {
		const next = at[key];
		if (typeof next !== "object" || next === null) throw new Error(`no ${keys.join("/")}`);
		return next as Json;
	}, node);
}

/** Every schema in the description, with where it is. */
function schemasOf(node: unknown, at = ""): [string, Json][] {
	if (typeof node !== "object" || node === null) return [];
	if (Array.isArray(node)) return node.flatMap((item, i) => schemasOf(item, `${at}/${i}`));
	return Object.entries(node as Json).flatMap(([key, value]): [string, Json][] => {
		if (key === "schema") return [[`${at}/schema`, value as Json]];
		if (at === "/components" && key === "schemas") {
			return Object.entries(value as Json).map(([name, schema]) => [`${at}/schemas/${name}`, schema as Json]);
		}
		return schemasOf(value, `${at}/${key}`);
	});
}

describe("openapi.json", () => {
	test("is the description generated from the routes' schemas (else run `bun run openapi`)", () => {
		expect(committed).toBe(apiDescriptionText(ROUTE_FILES));
	});

	test("is a valid OpenAPI 3.1 document, version 1.1.0, with no security scheme", async () => {
		const validator = new Validator();
		expect(await validator.validate(description)).toEqual({ valid: true });
		expect(validator.version).toBe("3.1");
		expect(description.openapi).toBe("3.1.0");
		expect((description.info as Json).version).toBe("1.1.0");
		expect(description.security).toEqual([]);
	});

	test("holds JSON Schemas that compile strictly: no keyword of ours leaks through", () => {
		const schemas = schemasOf(description);
		expect(schemas.length).toBeGreaterThan(20);
		for (const [where, schema] of schemas) {
			expect({ where, compiles: typeof schemaValidator(schema) }).toEqual({ where, compiles: "function" });
		}
		expect(committed).not.toContain("errorMessage");
	});

	test("describes exactly the endpoints of routes/, each answer with its body and headers", () => {
		const endpoints = Object.entries(ROUTE_FILES)
			.filter(([, route]) => isEndpoint(route))
			.map(([file]) => routePathOf(file).replace(/:(\w+)/g, "{$1}"));
		const paths = description.paths as Record<string, { get: Json }>;
		expect(Object.keys(paths).sort()).toEqual(endpoints.sort());
		const statuses = (path: string) => Object.keys(paths[path]?.get.responses as Json);
		expect(statuses("/api/faxes")).toEqual(["200", "304", "400", "403", "422", "429", "500", "503"]);
		expect(statuses("/api/faxes/{slug}")).toEqual([
			"200",
			"304",
			"400",
			"403",
			"404",
			"410",
			"429",
			"500",
			"503",
		]);
		for (const path of Object.keys(paths)) {
			const responses = paths[path]?.get.responses as Record<string, Json>;
			expect(Object.keys(responses["200"]?.headers as Json)).toContain("ETag");
			expect(Object.keys(responses["304"]?.headers as Json)).toEqual(
				expect.arrayContaining(["ETag", "Vary", "Cache-Control", "X-RateLimit-Remaining"]),
			);
			expect(responses["304"]?.content).toBeUndefined();
		}
		expect(Object.keys(paths).sort()).toEqual(["/api/faxes", "/api/faxes/{slug}"]);
		for (const adminPath of ["/healthz", "/readyz", "/metrics"]) expect(committed).not.toContain(adminPath);
	});

	test("declares HEAD on both endpoints: the GET's parameters and statuses, no body", () => {
		const paths = description.paths as Record<string, { get: Json; head: Json }>;
		for (const path of ["/api/faxes", "/api/faxes/{slug}"]) {
			const { get, head } = paths[path] as { get: Json; head: Json };
			expect(head.parameters).toEqual(get.parameters);
			const answers = head.responses as Record<string, Json>;
			expect(Object.keys(answers)).toEqual(Object.keys(get.responses as Json));
			for (const answer of Object.values(answers)) expect(answer.content).toBeUndefined();
		}
	});

	test("the single fax's 200 is the Fax component", () => {
		expect(
			pointer(description, [
				"paths",
				"/api/faxes/{slug}",
				"get",
				"responses",
				"200",
				"content",
				"application/json",
			]),
		).toEqual({ schema: { $ref: "#/components/schemas/Fax" } });
	});

	test("shows the query parameters as clients send them: limit an integer, since by an exact pattern, from at most 255", () => {
		const parameters = pointer(description, ["paths", "/api/faxes", "get"]).parameters as Json[];
		expect(parameters.map(({ name, in: where, required }) => ({ name, where, required }))).toEqual([
			{ name: "limit", where: "query", required: false },
			{ name: "since", where: "query", required: false },
			{ name: "from", where: "query", required: false },
			{ name: "wait", where: "query", required: false },
			{ name: "If-None-Match", where: "header", required: false },
			{ name: "Accept-Encoding", where: "header", required: false },
		]);
		const [limit, since, from, wait] = parameters.map((parameter) => parameter.schema as Json);
		expect(limit).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20, examples: [100] });
		expect(since).toEqual({
			type: "string",
			pattern: OFFSET_DATE_TIME_PATTERN,
			examples: ["2026-11-21T10:00:00Z"],
		});
		// 255 code points are always accepted; the server, counting as a reader does, accepts more.
		expect(from).toEqual({ type: "string", maxLength: 255, examples: ["+15551234567", "Unknown"] });
		expect(parameters[2]?.description).toContain("At most 255 characters");
		expect(wait).toEqual({ type: "integer", minimum: 1, maximum: 30, examples: [30] });
		for (const parameter of parameters) expect(String(parameter.description)).not.toBe("");
	});

	test("validates the answers it describes and refuses others", () => {
		const media = (path: string, status: string) =>
			pointer(description, [
				"paths",
				path,
				"get",
				"responses",
				status,
				"content",
				"application/json",
				"schema",
			]);
		const validation = schemaValidator(media("/api/faxes", "422"));
		const limit = "The limit field must be an integer between 1 and 100.";
		expect(validation({ message: limit, errors: { limit: [limit] } })).toBe(true);
		expect(validation({ message: limit, errors: {} })).toBe(false);
		expect(validation({ message: "Bad.", errors: { limit: ["Bad."] } })).toBe(false);
		expect(validation({ message: limit, errors: { page: [limit] } })).toBe(false);
		const gone = schemaValidator(media("/api/faxes/{slug}", "410"));
		expect(gone({ message: "" })).toBe(true);
		expect(gone({ message: "Gone." })).toBe(false);
	});
});

describe("GET /openapi.json", () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer();
	});
	afterAll(() => server.stop());

	test("serves the committed description, outside the rate limit", async () => {
		const response = await server.request("/openapi.json");
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(response.headers.get("cache-control")).toBe("no-store, private");
		expect(response.headers.get("access-control-allow-origin")).toBe("*");
		expect(response.headers.get("x-ratelimit-limit")).toBeNull();
		expect(response.headers.get("ratelimit")).toBeNull();
		expect(await response.text()).toBe(committed);
	});

	test("answers HEAD without a body, and 404 for other methods as any path outside the API", async () => {
		const head = await server.request("/openapi.json", {
			method: "HEAD",
			headers: { "accept-encoding": "identity" },
		});
		expect(head.status).toBe(200);
		expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(committed)));
		expect(await head.text()).toBe("");
		const post = await server.request("/openapi.json", { method: "POST" });
		expect(post.status).toBe(404);
	});
});
