import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { DESCRIPTION_FILE } from "../../testkit/api-description.ts";
import { ago, agoIn, faxRecord, fixedClock } from "../../testkit/fixtures.ts";
import { freePort } from "../../testkit/ports.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";

// Prism (@stoplight/prism-cli) in proxy mode forwards each request to the real
// server and reports in `sl-violations` where the request or the answer departs
// from openapi.json. Answers must never depart; requests do exactly where they
// are meant to be invalid. HEAD is left out: Prism 5.16 parses the empty body
// of a HEAD answered as JSON and fails (500); the HTTP tests hold HEAD to the
// description instead (testkit/api-description.ts).

const LIMIT = 30;
const PRISM = join(import.meta.dir, "..", "..", "node_modules", ".bin", "prism");
let server: TestServer;
let prism: ReturnType<typeof Bun.spawn>;
let base: string;

beforeAll(async () => {
	server = await startTestServer({
		clock: fixedClock,
		env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) },
		faxes: [
			faxRecord({ slug: "fax_live1" }),
			faxRecord({ slug: "fax_unknown1", sender: null, received_at: ago(120) }),
			faxRecord({ slug: "fax_gone1", removed: true }),
		],
	});
	const port = await freePort();
	base = `http://127.0.0.1:${port}`;
	prism = Bun.spawn(
		[PRISM, "proxy", DESCRIPTION_FILE, server.baseUrl, "-h", "127.0.0.1", "-p", String(port)],
		{
			stdout: "ignore",
			stderr: "ignore",
		},
	);
	const deadline = Date.now() + 20_000;
	for (;;) {
		try {
			await fetch(`${base}/openapi.json`);
			return;
		} catch (error) {
			if (Date.now() > deadline) throw error;
			await Bun.sleep(50);
		}
	}
});

afterAll(async () => {
	prism?.kill();
	await prism?.exited;
	await server?.stop();
});

interface Checked {
	request: string;
	status: number;
	/** Where Prism found the request invalid. */
	request_violations: string[];
	answer_violations: string[];
}

async function throughPrism(path: string, headers: Record<string, string> = {}): Promise<Checked> {
	const response = await fetch(`${base}${path}`, {
		headers: { "user-agent": "testfax-tests/1.0", ...headers },
	});
	await response.arrayBuffer();
	const violations = JSON.parse(response.headers.get("sl-violations") ?? "[]") as {
		location: string[];
		message: string;
	}[];
	const where = (side: string) =>
		violations.filter(({ location }) => location[0] === side).map(({ message }) => message);
	return {
		request: path,
		status: response.status,
		request_violations: where("request"),
		answer_violations: where("response"),
	};
}

/** [path, headers, status, whether the request itself is invalid by the description] */
const REQUESTS: [string, Record<string, string>, number, boolean][] = [
	["/api/faxes", {}, 200, false],
	["/api/faxes?limit=5", {}, 200, false],
	["/api/faxes?limit=007", {}, 200, false],
	["/api/faxes?from=Unknown&limit=100", {}, 200, false],
	["/api/faxes?from=%2B15551234567", {}, 200, false],
	[`/api/faxes?since=${ago(3600)}`, {}, 200, false],
	[`/api/faxes?since=${encodeURIComponent(agoIn(3600, "+02:00"))}`, {}, 200, false],
	[`/api/faxes?since=${encodeURIComponent(agoIn(3600, "-0530"))}`, {}, 200, false],
	["/api/faxes", { "accept-encoding": "gzip" }, 200, false],
	["/api/faxes/fax_live1", {}, 200, false],
	["/api/faxes/fax_none1", {}, 404, false],
	["/api/faxes/fax_gone1", {}, 410, false],
	["/api/faxes/", {}, 404, true],
	["/api/faxes?limit=0", {}, 422, true],
	["/api/faxes?limit=101", {}, 422, true],
	["/api/faxes?limit=ten", {}, 422, true],
	["/api/faxes?since=2016-12-31T23:59:60Z", {}, 422, true],
	["/api/faxes?since=2026-11-21T10:00:00%2B24:00", {}, 422, true],
	["/api/faxes?since=2026-02-30T10:00:00Z", {}, 422, true],
	["/api/faxes?since=2026-11-21", {}, 422, true],
	[`/api/faxes?from=${"a".repeat(256)}`, {}, 422, true],
	["/api/faxes", { "user-agent": "Python-urllib/3.12" }, 403, false],
];

test("Prism in proxy mode finds every answer as openapi.json describes it, /api/faxes/ included", async () => {
	const checked: Checked[] = [];
	for (const [path, headers] of REQUESTS) checked.push(await throughPrism(path, headers));
	const etag = (await fetch(`${server.baseUrl}/api/faxes/fax_live1`, { headers: { "user-agent": "t" } }))
		.headers;
	checked.push(await throughPrism("/api/faxes/fax_live1", { "if-none-match": etag.get("etag") ?? "" }));
	// The window runs out: the 429 is checked too.
	let last: Checked;
	do last = await throughPrism("/api/faxes");
	while (last.status === 200 && checked.length < 3 * LIMIT && checked.push(last));
	checked.push(last);

	expect(
		checked.flatMap(({ request, answer_violations }) => answer_violations.map((v) => `${request}: ${v}`)),
	).toEqual([]);
	expect(checked.map(({ request, status }) => [request, status]).slice(0, REQUESTS.length + 1)).toEqual([
		...REQUESTS.map(([path, , status]) => [path, status]),
		["/api/faxes/fax_live1", 304],
	]);
	expect(last.status).toBe(429);
	const invalid = REQUESTS.filter(([, , , isInvalid]) => isInvalid).map(([path]) => path);
	expect(
		checked.filter(({ request_violations }) => request_violations.length > 0).map(({ request }) => request),
	).toEqual(invalid);
}, 30_000);
