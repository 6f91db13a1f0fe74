import { expect, test } from "bun:test";
import { join } from "node:path";
import { ERROR_MESSAGES, FORBIDDEN_BODY, isEndpoint, singleValueMessage } from "../../lib/http/index.ts";
import { ROUTE_FILES } from "../../routes/manifest.ts";

const ROOT = join(import.meta.dir, "../..");
const GUIDE_FILE = join(ROOT, "docs/API.md");
const guide = await Bun.file(GUIDE_FILE).text();
const description = JSON.parse(await Bun.file(join(ROOT, "openapi.json")).text()) as {
	info: { version: string };
};

/** Every `errorMessage` of the endpoints' query parameters: the 422 texts. */
function queryMessages(): string[] {
	return Object.values(ROUTE_FILES)
		.filter(isEndpoint)
		.flatMap((route) => Object.values(route.query.properties))
		.map((schema) => (schema as { errorMessage?: string }).errorMessage)
		.filter((message): message is string => message !== undefined);
}

test("the guide quotes every message the API answers, word for word", () => {
	const messages = [
		...Object.values(ERROR_MESSAGES),
		...queryMessages(),
		singleValueMessage("from"),
		String(FORBIDDEN_BODY.const).trimEnd(),
	];
	expect(queryMessages()).toHaveLength(4);
	for (const message of messages)
		expect({ message, quoted: guide.includes(message) }).toEqual({ message, quoted: true });
});

test("the guide names the description's version and the draft the RateLimit headers follow", () => {
	expect(guide).toContain(`version \`${description.info.version}\``);
	expect(guide).toContain("draft-ietf-httpapi-ratelimit-headers-11");
	expect(JSON.stringify(description)).toContain("draft-ietf-httpapi-ratelimit-headers-11");
});
