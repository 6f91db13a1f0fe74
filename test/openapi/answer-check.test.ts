import { expect, test } from "bun:test";
import { answerProblems } from "../../testkit/api-description.ts";

const JSON_TYPE = "application/json; charset=utf-8";
const COUNTED = {
	"cache-control": "no-store, private",
	"x-ratelimit-limit": "60",
	"x-ratelimit-remaining": "59",
	"ratelimit-policy": '"default";q=60;w=60',
	ratelimit: '"default";r=59;t=60',
};
/** What an endpoint's 200 carries beside the counted headers. */
const REPRESENTED = { ...COUNTED, etag: 'W/"Xq3Yb1dGm0vT2sA9kLw4hE"', vary: "Accept-Encoding" };
const fax = {
	slug: "fax_a1",
	source: "phone",
	from: null,
	received_at: "2026-11-21T10:00:00Z",
	page_count: 1,
	file_size: 10,
	pdf_url: "https://cdn.example/faxes/fax_a1.pdf",
	thumbnail_url: "https://cdn.example/faxes/fax_a1-thumb.jpg",
	view_url: "https://site.example/faxtest/fax_a1",
};

function answer(
	status: number,
	body: unknown,
	headers: Record<string, string> = REPRESENTED,
	type = JSON_TYPE,
) {
	const text = typeof body === "string" ? body : JSON.stringify(body);
	return new Response(status === 204 ? null : text, {
		status,
		headers: { "content-type": type, ...headers },
	});
}

test("an answer as described has no problem, on both endpoints and for HEAD", async () => {
	expect(await answerProblems("GET", "http://h/api/faxes?limit=1", answer(200, [fax], REPRESENTED))).toEqual(
		[],
	);
	expect(await answerProblems("GET", "http://h/api/faxes/fax_a1", answer(200, fax, REPRESENTED))).toEqual([]);
	expect(await answerProblems("HEAD", "http://h/api/faxes/fax_a1", answer(200, "", REPRESENTED))).toEqual([]);
});

test("names an undescribed status, a missing or wrong header, a wrong type and a wrong body", async () => {
	expect(await answerProblems("GET", "http://h/api/faxes", answer(418, []))).toEqual([
		"status 418 is not described",
	]);
	const { "x-ratelimit-remaining": _, ...withoutRemaining } = REPRESENTED;
	expect(await answerProblems("GET", "http://h/api/faxes", answer(200, [], withoutRemaining))).toEqual([
		"header X-RateLimit-Remaining is missing",
	]);
	expect(
		await answerProblems("GET", "http://h/api/faxes", answer(200, [], { ...REPRESENTED, ratelimit: "r=5" })),
	).toEqual(['header RateLimit: "r=5" value must match pattern "^"default";r=\\d+;t=\\d+$"']);
	expect(
		await answerProblems("GET", "http://h/api/faxes", answer(200, [], REPRESENTED, "text/html")),
	).toEqual(['content type "text/html" is not described']);
	expect(
		await answerProblems(
			"GET",
			"http://h/api/faxes",
			answer(200, [{ ...fax, from: "+15551234567x", extra: 1 }]),
		),
	).toEqual(["body value/0 must NOT have additional properties"]);
	expect(
		await answerProblems("GET", "http://h/api/faxes/fax_a1", answer(404, { message: "Not found" })),
	).toEqual(["body value/message must be equal to constant"]);
});

test("a 304 needs the ETag, Vary and counted headers and has no body; a 200 may be compressed", async () => {
	const represented = REPRESENTED;
	const notModified = (headers: Record<string, string>, body: string | null = null) =>
		new Response(body, { status: 304, headers });
	expect(await answerProblems("GET", "http://h/api/faxes", notModified(represented))).toEqual([]);
	expect(await answerProblems("HEAD", "http://h/api/faxes/fax_a1", notModified(represented))).toEqual([]);
	const { etag: _, ...withoutEtag } = represented;
	expect(await answerProblems("GET", "http://h/api/faxes", notModified(withoutEtag))).toEqual([
		"header ETag is missing",
	]);
	expect(
		await answerProblems("GET", "http://h/api/faxes", notModified({ ...represented, etag: '"x"' })),
	).toEqual(['header ETag: ""x"" value must match pattern "^W/"[A-Za-z0-9_-]{22}"$"']);
	expect(await answerProblems("GET", "http://h/api/faxes", answer(200, [fax], represented))).toEqual([]);
	expect(
		await answerProblems(
			"GET",
			"http://h/api/faxes",
			answer(200, [fax], { ...represented, "content-encoding": "gzip" }),
		),
	).toEqual([]);
	expect(
		await answerProblems(
			"GET",
			"http://h/api/faxes",
			answer(200, [fax], { ...represented, "content-encoding": "deflate" }),
		),
	).toEqual(['header Content-Encoding: "deflate" value must be equal to one of the allowed values']);
});

test("a 429 needs Retry-After and X-RateLimit-Reset as integers", async () => {
	const tooMany = { message: "Too Many Attempts." };
	const headers = { ...COUNTED, "retry-after": "soon", "x-ratelimit-reset": "1795781400" };
	expect(await answerProblems("GET", "http://h/api/faxes", answer(429, tooMany, headers))).toEqual([
		'header Retry-After: "soon" value must be integer',
	]);
});

test("requests outside the API's operations are not checked", async () => {
	expect(await answerProblems("POST", "http://h/api/faxes", answer(405, {}))).toEqual([]);
	expect(await answerProblems("GET", "http://h/nope", answer(404, {}))).toEqual([]);
	expect(await answerProblems("GET", "http://h/openapi.json", answer(200, {}))).toEqual([]);
});
